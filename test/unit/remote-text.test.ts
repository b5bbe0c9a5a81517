import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { remoteText } from '../../lib/federation/remote-text.ts';
import { maxContentLength } from '../../lib/product.ts';
import { codePoints } from '../../lib/text/code-points.ts';

/**
 * docs/API.md "What comes in": a remote post's HTML as the board's text model (plain text, links
 * as URLs, mentions as @name or @name@host). The shapes are written as Mastodon
 * (app/lib/text_formatter.rb), Lemmy (markdown rendered to HTML) and NodeBB send them.
 */

const board = 'board.example';
const original = 'https://social.example/@anna/1';
const text = (html: string) => remoteText(html, original, board).text;

describe('remote HTML as the board’s text', () => {
  test('a Mastodon reply: the mention of a member, a remote mention, a hashtag and a link split into spans', () => {
    const html =
      '<p><span class="h-card" translate="no"><a href="https://board.example/u/Bert" class="u-url mention">@<span>Bert</span></a></span> ' +
      'und <span class="h-card"><a href="https://other.example/@cora" class="u-url mention">@<span>cora</span></a></span>: ' +
      'siehe <a href="https://example.org/ein/langer/pfad" target="_blank" rel="nofollow noopener" translate="no">' +
      '<span class="invisible">https://</span><span class="ellipsis">example.org/ein/lan</span><span class="invisible">ger/pfad</span></a> ' +
      '<a href="https://social.example/tags/kaffee" class="mention hashtag" rel="tag">#<span>kaffee</span></a></p>' +
      '<p>Zweiter Absatz<br />mit Umbruch &amp; Entität</p>';
    assert.equal(
      text(html),
      '@Bert und @cora@other.example: siehe https://example.org/ein/langer/pfad #kaffee\n\nZweiter Absatz\nmit Umbruch & Entität',
    );
  });

  test('a Lemmy comment: markdown rendered to HTML, a named link keeps its URL', () => {
    const html =
      '<p>Das steht <a href="https://example.org/doc">in der Doku</a>.</p>\n<ul>\n<li>eins</li>\n<li>zwei</li>\n</ul>\n<blockquote>\n<p>zitiert</p>\n</blockquote>';
    assert.equal(text(html), 'Das steht in der Doku (https://example.org/doc).\n\neins\n\nzwei\n\nzitiert');
  });

  test('scripts, frames, styles, tracking images and javascript: links leave only text and http links', () => {
    const html =
      '<p style="color:red" onclick="alert(1)">Hallo <script>alert("x")</script><style>p{display:none}</style>' +
      '<iframe src="https://evil.example/frame">Rahmen</iframe><img src="https://tracker.example/pixel.gif" width="1" height="1" alt="">' +
      '<a href="javascript:alert(1)">klick</a> <a href="/relativ">relativ</a> <a href="https://example.org/">https://example.org/</a>' +
      '<object data="x.swf">Objekt</object><svg><text>Grafik</text></svg></p>';
    const result = text(html);
    assert.equal(result, 'Hallo klick relativ https://example.org/');
    assert.doesNotMatch(result, /[<>]|alert|display|tracker|evil|Rahmen|Objekt|Grafik/);
  });

  test('a NodeBB post (a topic’s first post) with an emoji image and a code block', () => {
    const html =
      '<p dir="auto">Neues Thema <img src="https://forum.example/assets/emoji/smile.png" class="not-responsive emoji" title=":smile:" alt="😄" /></p>\n<pre><code>a &lt; b</code></pre>';
    assert.equal(text(html), 'Neues Thema\n\na < b');
  });

  test('over 1000 characters it is cut with a link to the original', () => {
    const long = `<p>${'Wort '.repeat(400)}</p>`;
    const result = remoteText(long, original, board);
    assert.equal(result.cut, true);
    const length = codePoints(result.text);
    assert.ok(length <= maxContentLength && length >= maxContentLength - 5, `${length} code points, as many as fit`);
    assert.ok(result.text.endsWith(`… ${original}`));
    assert.ok(result.text.startsWith('Wort Wort'));
    const short = remoteText('<p>kurz</p>', original, board);
    assert.deepEqual(short, { text: 'kurz', cut: false });
  });
});
