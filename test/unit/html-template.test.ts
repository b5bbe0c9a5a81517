import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fill, html, toText, trustedFile } from '../../lib/text/html.ts';

/** lib/text/html.ts: the one way the server writes HTML escapes every value that is not its own markup. */

test('every interpolated text is escaped, in text and in quoted attributes', () => {
  const hostile = `<script>alert('x')</script> & "q"`;
  assert.equal(
    toText(html`<p title="${hostile}">${hostile}</p>`),
    '<p title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;</p>',
  );
});

test('markup made by html passes as it is; lists are joined; null, undefined and false are nothing; numbers are text', () => {
  const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
  assert.equal(toText(html`<ul>${items}</ul>${null}${undefined}${false}${0}`), '<ul><li>a&lt;b</li><li>c</li></ul>0');
});

test('a value that only looks like markup is still text', () => {
  const fake = { toString: () => '<b>' } as unknown as string;
  assert.equal(toText(html`${fake}`), '&lt;b&gt;');
});

test('fill puts markup at a marker of the trusted file, and throws for a marker the file lacks', () => {
  const shell = trustedFile('<main><!-- main --></main>');
  assert.equal(toText(fill(shell, { '<!-- main -->': html`<p>${'<x>'}</p>` })), '<main><p>&lt;x&gt;</p></main>');
  assert.throws(() => fill(shell, { '<!-- head -->': html`` }), /web\/index\.html has no <!-- head -->/);
});
