import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalUrl, countLinks, entryLink, firstLink, splitLinks, youtubeVideoId } from '../../lib/text/links.ts';
import { previewDue, previewKind, refreshAfterSeconds, retryAfterSeconds } from '../../lib/preview/store.ts';

describe('first link of a text', () => {
  test('the first http or https link wins', () => {
    assert.equal(firstLink('see https://a.example/x and http://b.example/y'), 'https://a.example/x');
    assert.equal(firstLink('plain http://b.example/y then https://a.example/x'), 'http://b.example/y');
    assert.equal(firstLink('upper case HTTPS://A.example/Path'), 'HTTPS://A.example/Path');
  });

  test('trailing punctuation is not part of the link', () => {
    assert.equal(firstLink('look: https://example.com/page.'), 'https://example.com/page');
    assert.equal(firstLink('(see https://example.com/a_(b))'), 'https://example.com/a_(b');
    assert.equal(firstLink('"https://example.com/q?x=1"!'), 'https://example.com/q?x=1');
    assert.equal(firstLink('https://example.com/x?!;:,'), 'https://example.com/x');
    assert.equal(firstLink("it's https://example.com/'"), 'https://example.com/');
  });

  test('a link ends at whitespace, < > and quotes', () => {
    assert.equal(firstLink('<https://example.com/a>'), 'https://example.com/a');
    assert.equal(firstLink('https://example.com/a\nnext line'), 'https://example.com/a');
  });

  test('no link: undefined, and other schemes are not links', () => {
    assert.equal(firstLink('no link here'), undefined);
    assert.equal(firstLink('ftp://example.com/file mailto:a@example.com javascript:alert(1)'), undefined);
    assert.equal(firstLink('www.example.com without scheme'), undefined);
  });
});

test('countLinks counts each link the pages show, in any case, unusable ones too', () => {
  const text = 'a https://a.example/ b HTTP://B.example/x, c http://user:pw@c.example/ d ftp://d.example/';
  assert.equal(countLinks(text), 3);
  assert.equal(countLinks(text), splitLinks(text).filter((part) => typeof part !== 'string').length);
  assert.equal(countLinks('kein Link, nur www.example.com'), 0);
});

describe('canonical URL', () => {
  test('scheme and host lower-cased, default port and fragment dropped, path and query kept', () => {
    assert.equal(canonicalUrl('HTTPS://Example.COM:443/Path/To?q=A#frag'), 'https://example.com/Path/To?q=A');
    assert.equal(canonicalUrl('http://example.com:80'), 'http://example.com/');
    assert.equal(canonicalUrl('http://example.com:8080/x'), 'http://example.com:8080/x');
  });

  test('unusable links have no canonical form', () => {
    assert.equal(canonicalUrl('https://user:pw@example.com/'), undefined);
    assert.equal(canonicalUrl('http://'), undefined);
    assert.equal(canonicalUrl('ftp://example.com/'), undefined);
  });

  test('every video-site form becomes the watch address, other query parameters dropped', () => {
    const id = 'dQw4w9WgXcQ';
    const watch = `https://www.youtube.com/watch?v=${id}`;
    for (const form of [
      `https://youtu.be/${id}`,
      `https://youtu.be/${id}?t=42`,
      `http://youtu.be/${id}`,
      `https://www.youtube.com/watch?v=${id}`,
      `https://www.youtube.com/watch?v=${id}&list=PL123&t=10s`,
      `https://www.youtube.com/watch?feature=share&v=${id}`,
      `https://youtube.com/watch?v=${id}`,
      `https://m.youtube.com/watch?v=${id}`,
      `https://music.youtube.com/watch?v=${id}&si=abc`,
      `https://www.youtube.com/shorts/${id}`,
      `https://youtube.com/shorts/${id}?feature=share`,
      `https://www.youtube.com/embed/${id}`,
      `https://www.youtube-nocookie.com/embed/${id}?rel=0`,
      `https://youtube-nocookie.com/embed/${id}`,
      `https://www.youtube.com/live/${id}`,
      `https://www.youtube.com/v/${id}`,
      `HTTPS://WWW.YOUTUBE.COM/watch?v=${id}#t=5`,
      `https://www.youtube.com:443/watch?v=${id}`,
    ]) {
      assert.equal(canonicalUrl(form), watch, form);
    }
  });

  test('video-site links without a valid 11-character id stay ordinary pages', () => {
    assert.equal(youtubeVideoId(new URL('https://www.youtube.com/watch?v=short')), undefined);
    assert.equal(youtubeVideoId(new URL('https://www.youtube.com/watch?v=dQw4w9WgXcQx')), undefined);
    assert.equal(youtubeVideoId(new URL('https://www.youtube.com/@channel')), undefined);
    assert.equal(youtubeVideoId(new URL('https://youtu.be/')), undefined);
    assert.equal(youtubeVideoId(new URL('https://notyoutube.com/watch?v=dQw4w9WgXcQ')), undefined);
    assert.equal(youtubeVideoId(new URL('https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ')), undefined);
    assert.equal(canonicalUrl('https://www.youtube.com/feed/trending'), 'https://www.youtube.com/feed/trending');
  });

  test('entryLink: the canonical first link, or empty', () => {
    assert.equal(entryLink('watch https://youtu.be/dQw4w9WgXcQ!'), 'https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    assert.equal(entryLink('read https://Example.com/a#b, then https://other.example/'), 'https://example.com/a');
    assert.equal(entryLink('nothing'), '');
  });
});

describe('kind and refresh rules', () => {
  test('kind is youtube only for the canonical watch address', () => {
    assert.equal(previewKind('https://www.youtube.com/watch?v=dQw4w9WgXcQ'), 'youtube');
    assert.equal(previewKind('https://www.youtube.com/feed/trending'), 'page');
    assert.equal(previewKind('https://example.com/'), 'page');
  });

  test('a record is due when missing, after 30 days, or a day after a failure', () => {
    const now = 1_800_000_000;
    assert.equal(previewDue(undefined, now), true);
    assert.equal(previewDue({ fetched_at: now - refreshAfterSeconds + 1, failed_at: 0 }, now), false);
    assert.equal(previewDue({ fetched_at: now - refreshAfterSeconds, failed_at: 0 }, now), true);
    assert.equal(previewDue({ fetched_at: 0, failed_at: now - retryAfterSeconds + 1 }, now), false);
    assert.equal(previewDue({ fetched_at: 0, failed_at: now - retryAfterSeconds }, now), true);
    // a refresh that failed keeps the old record and waits a day, not 30
    assert.equal(previewDue({ fetched_at: now - 40 * 86_400, failed_at: now - 3600 }, now), false);
    assert.equal(previewDue({ fetched_at: now - 40 * 86_400, failed_at: now - retryAfterSeconds }, now), true);
  });
});
