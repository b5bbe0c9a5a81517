/** Link extraction and canonical URLs for previews (docs/API.md "Link previews"). */
import { linkSource, trailingPunctuation } from '../../web/static/format.js';

export { splitLinks } from '../../web/static/format.js';

const linkPattern = new RegExp(linkSource, 'i');
const videoId = /^[A-Za-z0-9_-]{11}$/;
const videoHosts = new Set([
  'youtube.com',
  'www.youtube.com',
  'm.youtube.com',
  'music.youtube.com',
  'youtube-nocookie.com',
  'www.youtube-nocookie.com',
]);

export function firstLink(text: string): string | undefined {
  const match = linkPattern.exec(text);
  return match ? match[0].replace(trailingPunctuation, '') : undefined;
}

export function countLinks(text: string): number {
  return text.match(new RegExp(linkSource, 'gi'))?.length ?? 0;
}

export function youtubeVideoId(url: URL): string | undefined {
  const host = url.hostname.toLowerCase();
  let id: string | null | undefined;
  if (host === 'youtu.be') {
    id = url.pathname.split('/')[1];
  } else if (videoHosts.has(host)) {
    const [, first, second] = url.pathname.split('/');
    if (first === 'watch') id = url.searchParams.get('v');
    else if (first && ['shorts', 'embed', 'live', 'v'].includes(first)) id = second;
  }
  return id && videoId.test(id) ? id : undefined;
}

/**
 * The canonical form of a link, the key of its one preview record: lower-case scheme and host,
 * default port and fragment dropped; every video-site form becomes its watch address.
 * Undefined when the text is not a usable http(s) URL.
 */
export function canonicalUrl(link: string): string | undefined {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  const id = youtubeVideoId(url);
  if (id) return `https://www.youtube.com/watch?v=${id}`;
  url.hash = '';
  return url.toString();
}

export function entryLink(text: string): string {
  const link = firstLink(text);
  return (link && canonicalUrl(link)) || '';
}
