// Building DOM nodes. User text only ever goes in as text nodes: no innerHTML anywhere. Where there
// is no document (the server), h() and svg() build a plain tree instead, which lib/text/html.ts
// writes as escaped HTML: so the markup of a public view (markup/) is written once, for both.

/**
 * What may be a child: a node, text (numbers too), or an array of children (written as the shape
 * of one: a JSDoc type may not name itself inside Child[]); null, undefined and false are left
 * out, so `cond ? node : null` and `cond && node` can be written inline.
 * @typedef {Node | string | number | false | null | undefined | { readonly [index: number]: Child, readonly length: number }} Child
 */

/**
 * Attributes: false, null and undefined leave one out, true sets it empty; `on*` functions become listeners.
 * @typedef {Record<string, string | number | boolean | null | undefined | EventListener>} Attrs
 */

/**
 * What h() and svg() give on the server: the tag, its attributes and its children, for
 * lib/text/html.ts to write (drawnHtml), which leaves the `on*` listeners out.
 * @typedef {{ tag: string, attrs: Attrs, children: Child[] }} DrawnTree
 */

const onServer = typeof document === 'undefined';

/**
 * The server's back end of h() and svg(): typed as the element the browser's makes, because only
 * lib/text/html.ts reads the tree, and a view written for both never reaches into what it drew.
 * @template {Element} E
 * @param {string} tag
 * @param {Attrs} attrs
 * @param {Child[]} children
 * @returns {E}
 */
function tree(tag, attrs, children) {
  /** @type {DrawnTree} */
  const drawn = { tag, attrs, children };
  return /** @type {E} */ (/** @type {unknown} */ (drawn));
}

/**
 * h('a', {href: '/x', class: 'y'}, 'Text', child) → element. Attribute values of false, null or
 * undefined are left out; `on*` functions become event listeners; children may be arrays.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  if (onServer) return tree(tag, attrs, children);
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const svgNs = 'http://www.w3.org/2000/svg';

/**
 * The same for SVG elements (the statistics chart).
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs = {}, ...children) {
  if (onServer) return tree(tag, attrs, children);
  const el = document.createElementNS(svgNs, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {Attrs} attrs
 */
function setAttrs(el, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Appends children (strings, nodes, arrays; null and false are skipped).
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/**
 * Replaces all children of `el`.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let idCounter = 0;
/**
 * A unique id for label/aria wiring.
 * @param {string} [prefix]
 */
export function uid(prefix = 'f') {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}
