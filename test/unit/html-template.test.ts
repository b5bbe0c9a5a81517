import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawnHtml, fill, html, toText, trustedFile } from '../../lib/text/html.ts';

/** The front end's h() (web/static/dom.js): in Node, where there is no document, it draws a tree for drawnHtml. */
const domPath: string = '../../web/static/dom.js';
const { h, svg } = (await import(domPath)) as {
  h: (tag: string, attrs?: Record<string, unknown>, ...children: unknown[]) => unknown;
  svg: (tag: string, attrs?: Record<string, unknown>, ...children: unknown[]) => unknown;
};

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

test("the front end's h() on the server: text and attribute values escaped, listeners left out, void elements unclosed", () => {
  const hostile = `<script>alert('x')</script> & "q"`;
  const tree = h(
    'p',
    { class: 'x', title: hostile, hidden: true, open: false, lang: null, onclick: () => {} },
    hostile,
    h('img', { src: '/a.png', alt: '' }),
    [0, [null, undefined, false, 'b']],
    svg('svg', { viewBox: '0 0 1 1' }, svg('line', { x1: 0 })),
  );
  assert.equal(
    toText(drawnHtml(tree)),
    '<p class="x" title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;" hidden>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;<img src="/a.png" alt="">0b<svg viewBox="0 0 1 1"><line x1="0"></line></svg></p>',
  );
});

test('drawnHtml writes only trees h() drew, with plain tag and attribute names', () => {
  assert.throws(() => drawnHtml({ toString: () => '<b>' }), /not a tree that h\(\) drew/);
  assert.throws(() => drawnHtml(h('p', { 'x onload': 'alert(1)' })), /not an attribute name/);
  assert.throws(() => drawnHtml(h('p onclick=alert(1)')), /not a tree that h\(\) drew/);
});
