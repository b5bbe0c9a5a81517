import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { acceptedTypes } from '../../lib/preview/fetch.ts';
import {
  cleanText,
  decodeText,
  detectCharset,
  isBotChallenge,
  parseOembed,
  parsePage,
} from '../../lib/preview/page.ts';

const pageUrl = new URL('https://www.example.com:8443/articles/one.html');
const html = (head: string, body = '') =>
  Buffer.from(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`);

describe('page metadata', () => {
  test('OpenGraph wins over Twitter cards and <title>, whatever the attribute order and quoting', async () => {
    const meta = await parsePage(
      html(`<title>Plain</title>
      <meta name="twitter:title" content="Card title">
      <meta content='OG title' property='og:title'>
      <META PROPERTY=og:site_name CONTENT="The Site">
      <meta property="og:image" content="https://cdn.example.com/a.jpg">`),
      'text/html',
      pageUrl,
    );
    assert.deepEqual(meta, { title: 'OG title', site: 'The Site', image: 'https://cdn.example.com/a.jpg' });
  });

  test('twitter:title, then <title>; the site falls back to the host without www. and port', async () => {
    assert.equal(
      (await parsePage(html('<title>Plain</title><meta name="twitter:title" content="Card">'), 'text/html', pageUrl))
        .title,
      'Card',
    );
    const plain = await parsePage(html('<title>Only a title</title>'), 'text/html', pageUrl);
    assert.deepEqual(plain, { title: 'Only a title', site: 'example.com', image: '' });
  });

  test('entities are decoded and whitespace collapsed', async () => {
    const meta = await parsePage(
      html('<title>\n  Fish &amp; Chips &#8211; caf&eacute;\t&lt;b&gt;  &#x1F41F; </title>'),
      'text/html',
      pageUrl,
    );
    assert.equal(meta.title, 'Fish & Chips – café <b> 🐟');
    const og = await parsePage(
      html('<meta property="og:title" content="A &quot;quoted&quot; &amp;amp; title">'),
      'text/html',
      pageUrl,
    );
    assert.equal(og.title, 'A "quoted" &amp; title');
  });

  test('titles are cut to 300 code points, not UTF-16 units', async () => {
    const meta = await parsePage(html(`<title>${'😀'.repeat(400)}</title>`), 'text/html', pageUrl);
    assert.equal(Array.from(meta.title).length, 300);
    assert.equal(meta.title, '😀'.repeat(300));
  });

  test('a relative og:image is resolved against the page; non-http images are dropped', async () => {
    assert.equal(
      (await parsePage(html('<meta property="og:image" content="/img/a.png">'), 'text/html', pageUrl)).image,
      'https://www.example.com:8443/img/a.png',
    );
    assert.equal(
      (await parsePage(html('<meta property="og:image" content="b.png">'), 'text/html', pageUrl)).image,
      'https://www.example.com:8443/articles/b.png',
    );
    assert.equal(
      (await parsePage(html('<meta property="og:image" content="//cdn.example.net/c.png">'), 'text/html', pageUrl))
        .image,
      'https://cdn.example.net/c.png',
    );
    assert.equal(
      (await parsePage(html('<meta property="og:image" content="javascript:alert(1)">'), 'text/html', pageUrl)).image,
      '',
    );
    assert.equal(
      (await parsePage(html('<meta property="og:image" content="data:image/png;base64,AAAA">'), 'text/html', pageUrl))
        .image,
      '',
    );
  });

  test('a <title> inside inline SVG is not the page title', async () => {
    const meta = await parsePage(html('', '<svg><title>icon</title></svg>'), 'text/html', pageUrl);
    assert.equal(meta.title, '');
    assert.equal(
      (await parsePage(html('<title>Page</title>', '<svg><title>icon</title></svg>'), 'text/html', pageUrl)).title,
      'Page',
    );
  });

  test('no title at all: empty', async () => {
    assert.equal((await parsePage(html('<meta name="description" content="x">'), 'text/html', pageUrl)).title, '');
    assert.equal((await parsePage(Buffer.from('not html at all'), 'text/html', pageUrl)).title, '');
  });

  test('a page cut off inside <title> still gives what was there', async () => {
    assert.equal(
      (await parsePage(Buffer.from('<html><head><title>Cut off he'), 'text/html', pageUrl)).title,
      'Cut off he',
    );
  });

  test('bidi overrides and control characters are dropped', () => {
    assert.equal(cleanText('a\u202eb\u0000c\u200bd'), 'abcd');
  });
});

describe('charset', () => {
  const latin = Buffer.from('<html><head><title>Gr\xfc\xdfe aus K\xf6ln \x80</title></head></html>', 'latin1');

  test('from the Content-Type header', async () => {
    assert.equal(await detectCharset(latin, 'text/html; charset=windows-1252'), 'windows-1252');
    assert.equal((await parsePage(latin, 'text/html; charset=windows-1252', pageUrl)).title, 'Grüße aus Köln €');
    assert.equal((await parsePage(latin, 'text/html; charset="ISO-8859-1"', pageUrl)).title, 'Grüße aus Köln €'); // WHATWG: latin1 is windows-1252
  });

  test('from <meta charset> and <meta http-equiv> when the header has none', async () => {
    const withMeta = Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin]);
    assert.equal((await parsePage(withMeta, 'text/html', pageUrl)).title, 'Grüße aus Köln €');
    const httpEquiv = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'),
      latin,
    ]);
    assert.equal((await parsePage(httpEquiv, 'text/html', pageUrl)).title, 'Grüße aus Köln €');
  });

  test('the header beats <meta>, a byte-order mark beats both', async () => {
    const utf8 = Buffer.from('<meta charset="windows-1252"><title>Grüße</title>');
    assert.equal((await parsePage(utf8, 'text/html; charset=utf-8', pageUrl)).title, 'Grüße');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]);
    assert.equal((await parsePage(bom, 'text/html; charset=windows-1252', pageUrl)).title, 'Grüße');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<title>Grüße</title>', 'utf16le')]);
    assert.equal((await parsePage(utf16, 'text/html', pageUrl)).title, 'Grüße');
  });

  test('windows-1252 has its own letters at 0x80–0x9F (Node 20 decodes them as Latin-1)', () => {
    assert.equal(decodeText(Buffer.from([0x84, 0x93, 0x80, 0x96, 0x9f, 0xe4]), 'windows-1252'), '„“€–Ÿä');
    assert.equal(decodeText(Buffer.from([0x80]), 'iso-8859-1'), '€');
  });

  test('unknown labels fall back to UTF-8', async () => {
    assert.equal(await detectCharset(Buffer.from('<title>x</title>'), 'text/html; charset=klingon'), 'utf-8');
    assert.equal(await detectCharset(Buffer.from('<meta charset="utf-16"><title>x</title>'), 'text/html'), 'utf-8');
  });
});

describe('bot challenges', () => {
  test('interstitial titles are recognised', () => {
    for (const title of [
      'Just a moment...',
      'Just a moment…',
      'Attention Required! | Cloudflare',
      'Please Wait... | Cloudflare',
      'DDoS-Guard',
      'One moment, please...',
      'Checking your browser before accessing example.com',
      'Access denied',
      'Pardon Our Interruption',
    ]) {
      assert.equal(isBotChallenge(title), true, title);
    }
  });

  test('ordinary titles are not', () => {
    for (const title of [
      'How to wait for a moment',
      'Access to justice',
      'Example Domain',
      'Security checklist for small boards',
    ]) {
      assert.equal(isBotChallenge(title), false, title);
    }
  });
});

describe('oEmbed answers', () => {
  const endpoint = new URL('https://www.youtube.com/oembed?url=x&format=json');

  test('title, channel and thumbnail', () => {
    const answer = Buffer.from(
      JSON.stringify({
        title: ' A  video ',
        author_name: 'Channel',
        thumbnail_url: 'https://i.ytimg.com/vi/x/hqdefault.jpg',
        type: 'video',
      }),
    );
    assert.deepEqual(parseOembed(answer, endpoint), {
      title: 'A video',
      site: 'Channel',
      image: 'https://i.ytimg.com/vi/x/hqdefault.jpg',
    });
  });

  test('anything but a JSON object is no answer, without throwing', () => {
    for (const body of ['Not Found', 'Unauthorized', '', '[1,2]', 'null', '"text"', '{"title":']) {
      assert.equal(parseOembed(Buffer.from(body), endpoint), undefined, body);
    }
  });

  test('fields of the wrong type count as missing', () => {
    assert.deepEqual(parseOembed(Buffer.from('{"title":42,"author_name":["x"],"thumbnail_url":{}}'), endpoint), {
      title: '',
      site: '',
      image: '',
    });
  });
});

describe('content types', () => {
  test('each resource accepts only its own types', () => {
    for (const type of ['text/html', 'text/html; charset=utf-8', 'application/xhtml+xml'])
      assert.equal(acceptedTypes.html(type), true, type);
    for (const type of ['', 'text/plain', 'text/htmlx', 'application/json', 'image/svg+xml'])
      assert.equal(acceptedTypes.html(type), false, type);
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'text/json',
      'application/json+oembed',
      'application/ld+json',
    ]) {
      assert.equal(acceptedTypes.json(type), true, type);
    }
    for (const type of ['', 'text/plain', 'text/html', 'application/jsonp', 'application/javascript'])
      assert.equal(acceptedTypes.json(type), false, type);
    for (const type of ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/jpeg; q=1'])
      assert.equal(acceptedTypes.image(type), true, type);
    for (const type of ['', 'image/svg+xml', 'text/html', 'application/octet-stream'])
      assert.equal(acceptedTypes.image(type), false, type);
  });
});
