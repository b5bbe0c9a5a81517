/**
 * The small XML writer the Atom feeds need: no library, because the feeds use a handful of
 * elements and every piece of user text goes through `xmlText` on its way in.
 */

const notXmlChar =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlText(text: string): string {
  return text
    .replace(notXmlChar, '\uFFFD') // a parser stops at the first forbidden character, so none may pass
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export type Attributes = Record<string, string>;

export function element(name: string, attributes: Attributes, text?: string): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${xmlText(value)}"`)
    .join('');
  return text === undefined ? `<${name}${attrs}/>` : `<${name}${attrs}>${xmlText(text)}</${name}>`;
}

export function parent(name: string, attributes: Attributes, children: string[]): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${xmlText(value)}"`)
    .join('');
  return `<${name}${attrs}>\n${children.join('\n')}\n</${name}>`;
}

export function atomTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
