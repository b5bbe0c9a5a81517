// Building DOM nodes. User text only ever goes in as text nodes: no innerHTML anywhere.

/**
 * h('a', {href: '/x', class: 'y'}, 'Text', child) → element. Attribute values of false, null or
 * undefined are left out; `on*` functions become event listeners; children may be arrays.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const svgNs = 'http://www.w3.org/2000/svg';

/** The same for SVG elements (the statistics chart). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(svgNs, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Appends children (strings, nodes, arrays; null and false are skipped). */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/** Replaces all children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let idCounter = 0;
/** A unique id for label/aria wiring. */
export function uid(prefix = 'f') {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}
