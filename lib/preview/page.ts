import { maxPreviewTitleLength } from '../product.ts';

let htmlparser2Loaded: Promise<typeof import('htmlparser2')> | undefined;
const loadHtmlparser2 = () => (htmlparser2Loaded ??= import('htmlparser2'));

export interface PageMeta {
  title: string;
  site: string;
  image: string;
}

/**
 * Text as a preview shows it: whitespace collapsed, control and bidi-override characters dropped
 * (they could reorder the text around it), at most `max` code points.
 */
export function cleanText(raw: string, max = maxPreviewTitleLength): string {
  const flat = raw
    .replace(/[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const points = Array.from(flat);
  return points.length > max ? points.slice(0, max).join('').trim() : flat;
}

// Interstitials of bot protection services: their title is not the page's.
const challengeTitles = [
  /^just a moment\b/i,
  /^attention required\b/i,
  /^one moment, please\b/i,
  /^please wait\b.*\bcloudflare\b/i,
  /^checking (your|if the site connection is) (browser|secure)/i,
  /^ddos-guard\b/i,
  /^ddos protection by\b/i,
  /^verifying you are human\b/i,
  /^are you a robot\b/i,
  /^robot or human\b/i,
  /^pardon our interruption\b/i,
  /^access denied\b/i,
  /^security check\b/i,
];

export function isBotChallenge(title: string): boolean {
  return challengeTitles.some((pattern) => pattern.test(title));
}

export async function detectCharset(body: Buffer, contentType: string): Promise<string> {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  const fromHeader = /charset\s*=\s*["']?([^\s;"']+)/i.exec(contentType)?.[1];
  if (fromHeader && knownCharset(fromHeader)) return fromHeader;
  const fromMeta = await metaCharset(body);
  // HTML: a <meta> claiming UTF-16 in bytes that are readable as ASCII means UTF-8.
  if (fromMeta && knownCharset(fromMeta)) return /^utf-16/i.test(fromMeta) ? 'utf-8' : fromMeta;
  return 'utf-8';
}

function knownCharset(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

// WHATWG's windows-1252 at 0x80–0x9F (the rest is Latin-1). Node 20's TextDecoder decodes this
// label, which also covers "iso-8859-1", "latin1" and "ascii", as plain Latin-1 and loses € and „“.
const windows1252High = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

export function decodeText(body: Buffer, charset: string): string {
  const decoder = new TextDecoder(charset);
  if (decoder.encoding !== 'windows-1252') return decoder.decode(body);
  return body
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(windows1252High[c.charCodeAt(0) - 0x80]!));
}

async function metaCharset(body: Buffer): Promise<string | undefined> {
  const { Parser } = await loadHtmlparser2();
  let found: string | undefined;
  const parser = new Parser({
    onopentag(name, attrs) {
      if (found || name !== 'meta') return;
      if (attrs.charset) found = attrs.charset.trim();
      else if (attrs['http-equiv']?.trim().toLowerCase() === 'content-type')
        found = /charset\s*=\s*["']?([^\s;"']+)/i.exec(attrs.content ?? '')?.[1];
    },
  });
  parser.end(body.subarray(0, 64 * 1024).toString('latin1'));
  return found;
}

export async function parsePage(body: Buffer, contentType: string, pageUrl: URL): Promise<PageMeta> {
  const { Parser } = await loadHtmlparser2();
  const html = decodeText(body, await detectCharset(body, contentType));
  const meta = new Map<string, string>();
  let title: string | undefined;
  let titleText = '';
  let inTitle = false;
  let svgDepth = 0; // <title> inside inline SVG names the drawing, not the page
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'svg') svgDepth++;
        if (name === 'title' && svgDepth === 0 && title === undefined) inTitle = true;
        if (name === 'meta' && attrs.content !== undefined) {
          const key = (attrs.property ?? attrs.name ?? '').trim().toLowerCase();
          if (key && !meta.has(key)) meta.set(key, attrs.content);
        }
      },
      ontext(text) {
        if (inTitle) titleText += text;
      },
      onclosetag(name) {
        if (name === 'svg' && svgDepth > 0) svgDepth--;
        if (name === 'title' && inTitle) {
          inTitle = false;
          title = titleText;
        }
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  if (inTitle) title = titleText;

  const first = (...keys: string[]) => keys.map((k) => cleanText(meta.get(k) ?? '')).find(Boolean) ?? '';
  const image = ['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src']
    .map((k) => meta.get(k)?.trim() ?? '')
    .find(Boolean);
  return {
    title: first('og:title', 'twitter:title') || cleanText(title ?? ''),
    site: first('og:site_name') || siteFromHost(pageUrl),
    image: absoluteHttpUrl(image ?? '', pageUrl),
  };
}

export function parseOembed(body: Buffer, endpoint: URL): PageMeta | undefined {
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const field = (name: string) => {
    const value = (data as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : '';
  };
  return {
    title: cleanText(field('title')),
    site: cleanText(field('author_name')),
    image: absoluteHttpUrl(field('thumbnail_url').trim(), endpoint),
  };
}

export function siteFromHost(url: URL): string {
  return url.hostname.replace(/^www\./, '');
}

function absoluteHttpUrl(link: string, base: URL): string {
  if (!link) return '';
  try {
    const url = new URL(link, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : '';
  } catch {
    return '';
  }
}
