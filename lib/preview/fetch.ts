import type { Config } from '../config.ts';
import type { Images } from '../media/images.ts';
import { saveMedia } from '../media/files.ts';
import { PreviewFetchError, type PreviewClient } from '../outgoing/client.ts';
import { isBotChallenge, parseOembed, parsePage, type PageMeta } from './page.ts';
import { previewKind, type PreviewKind } from './store.ts';

/** Read limits per resource (docs/OPERATIONS.md "Link previews"): decoded HTML, oEmbed JSON, image. */
export const maxHtmlBytes = 1024 * 1024;
export const maxOembedBytes = 64 * 1024;
export const maxImageBytes = 5 * 1024 * 1024;

export class UnusablePage extends Error {}

export interface FetchedPreview {
  kind: PreviewKind;
  title: string;
  site: string;
  image: string;
}

export const acceptedTypes = {
  html: (type: string) => /^(text\/html|application\/xhtml\+xml)\s*(;|$)/.test(type),
  json: (type: string) => /^(application|text)\/([\w.-]+\+)?json(\+oembed)?\s*(;|$)/.test(type),
  // SVG is refused: a drawing program, not a picture; sharp decides the real format from the bytes.
  image: (type: string) => /^image\/[\w.+-]+\s*(;|$)/.test(type) && !type.startsWith('image/svg'),
};

export const imageAccept = 'image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1';

export async function fetchPreview(
  client: PreviewClient,
  config: Config,
  url: string,
  signal?: AbortSignal,
): Promise<FetchedPreview> {
  const kind = previewKind(url);
  const meta =
    kind === 'youtube'
      ? await fetchOembed(client, config.youtubeOembed, url, signal)
      : await fetchPage(client, url, signal);
  return { kind, ...meta };
}

async function fetchPage(client: PreviewClient, url: string, signal?: AbortSignal): Promise<PageMeta> {
  const page = await client.get(url, {
    accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
    type: acceptedTypes.html,
    maxBytes: maxHtmlBytes,
    overflow: 'truncate',
    // Everything a preview needs is in <head>: stop there instead of reading the whole page.
    enough: (tail) => tail.toString('latin1').toLowerCase().includes('</head'),
    signal,
  });
  const meta = await parsePage(page.body, page.contentType, page.url);
  if (isBotChallenge(meta.title)) throw new UnusablePage(`${url} is a bot challenge ("${meta.title}")`);
  return meta;
}

async function fetchOembed(
  client: PreviewClient,
  endpoint: string,
  watchUrl: string,
  signal?: AbortSignal,
): Promise<PageMeta> {
  const request = new URL(endpoint);
  request.searchParams.set('url', watchUrl);
  request.searchParams.set('format', 'json');
  const answer = await client.get(request, {
    accept: 'application/json',
    type: acceptedTypes.json,
    maxBytes: maxOembedBytes,
    overflow: 'fail',
    signal,
  });
  const meta = parseOembed(answer.body, answer.url);
  if (!meta) throw new UnusablePage(`oEmbed for ${watchUrl} is not a JSON object`);
  return meta;
}

export async function fetchThumbnail(
  client: PreviewClient,
  images: Pick<Images, 'previewThumbnail'>,
  config: Config,
  imageUrl: string,
  signal?: AbortSignal,
  log?: (line: string) => void,
): Promise<string> {
  if (!imageUrl) return '';
  try {
    const image = await client.get(imageUrl, {
      accept: imageAccept,
      type: acceptedTypes.image,
      maxBytes: maxImageBytes,
      overflow: 'fail',
      signal,
    });
    return await saveMedia(config, 'preview', 'jpg', await images.previewThumbnail(image.body));
  } catch (err) {
    // Stopping, or our resolver's time limit: the whole job is tried again later.
    if (signal?.aborted || (err instanceof PreviewFetchError && err.reason === 'dns-timeout')) throw err;
    log?.(`preview image ${imageUrl}: ${(err as Error).message}`);
    return '';
  }
}
