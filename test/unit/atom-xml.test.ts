import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atomTime, element, xmlText } from '../../lib/atom/xml.ts';

test('xmlText escapes markup and quotes and replaces characters XML forbids', () => {
  assert.equal(xmlText(`a & b < c > d " e ' f`), 'a &amp; b &lt; c &gt; d &quot; e &apos; f');
  assert.equal(xmlText('x\u0000y\u0008z\u000Bw\uFFFEv'), 'x\uFFFDy\uFFFDz\uFFFDw\uFFFDv');
  assert.equal(xmlText('Tab\tNeue\nZeile\r'), 'Tab\tNeue\nZeile\r', 'tab, newline and return stay');
  assert.equal(xmlText('a\uD800b\uDC00c 😀'), 'a\uFFFDb\uFFFDc 😀', 'lone surrogates go, pairs stay');
});

test('element escapes attribute values and text; atomTime is RFC 3339 without fractions', () => {
  assert.equal(element('link', { href: 'https://x/?a=1&b="2"' }), '<link href="https://x/?a=1&amp;b=&quot;2&quot;"/>');
  assert.equal(element('title', {}, '<b>'), '<title>&lt;b&gt;</title>');
  assert.equal(atomTime(0), '1970-01-01T00:00:00Z');
});
