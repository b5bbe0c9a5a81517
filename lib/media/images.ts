import type { Metadata, Sharp, SharpConstructor } from 'sharp';
import { ApiError } from '../errors.ts';
import { uploadLimitMessages } from '../messages.ts';
import { mediaFormats, type MediaExtension } from './files.ts';
import type { Semaphore } from '../host/semaphore.ts';
import { avatarSize, maxGifFrames, maxGifPixels, maxImageEdge, maxImagePixels } from '../product.ts';

const extensions = new Map(
  Object.entries(mediaFormats).map(([extension, format]) => [format.sharp as string, extension as MediaExtension]),
);

// sharp loads with the first image and is set up then: it works on libuv's thread pool; two jobs at a time on the machine
// (lib/host/machine-slots.ts) bound memory and leave threads for scrypt, and one libvips thread per image means two
// uploads at once never take both cores from reads.
let sharpLoaded: Promise<SharpConstructor> | undefined;
const loadSharp = (): Promise<SharpConstructor> =>
  (sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  }));

export interface ProcessedImage {
  data: Buffer;
  extension: MediaExtension;
}

async function inspect(sharp: SharpConstructor, data: Buffer): Promise<{ format: string; pages: number }> {
  let meta: Metadata;
  try {
    meta = await sharp(data, { limitInputPixels: false }).metadata();
  } catch {
    throw new ApiError(400, 'upload.bad_type');
  }
  if (!meta.format || !extensions.has(meta.format)) throw new ApiError(400, 'upload.bad_type');
  const pages = meta.pages ?? 1;
  const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) * pages;
  // The GIF caps first: they are the tighter ones, so a long animation is told the limit it passed.
  if (meta.format === 'gif' && (pages > maxGifFrames || pixels > maxGifPixels))
    throw new ApiError(413, 'upload.too_large', { message: uploadLimitMessages.gif });
  if (pixels > maxImagePixels) throw new ApiError(413, 'upload.too_large', { message: uploadLimitMessages.pixels });
  return { format: meta.format, pages };
}

async function render(pipeline: Sharp): Promise<Buffer> {
  try {
    return await pipeline.toBuffer();
  } catch {
    throw new ApiError(400, 'upload.bad_type');
  }
}

function open(sharp: SharpConstructor, data: Buffer, format: string, pages: number): Sharp {
  return sharp(data, { limitInputPixels: maxImagePixels, animated: format === 'gif' && pages > 1 });
}

/**
 * An entry image: at most maxImageEdge pixels on the longer side, never enlarged, orientation applied,
 * all metadata (EXIF, GPS) dropped, format kept, animated GIFs kept animated.
 */
async function entryImage(data: Buffer): Promise<ProcessedImage> {
  const sharp = await loadSharp();
  const { format, pages } = await inspect(sharp, data);
  const pipeline = open(sharp, data, format, pages)
    .rotate()
    .resize(maxImageEdge, maxImageEdge, { fit: 'inside', withoutEnlargement: true });
  return { data: await render(pipeline), extension: extensions.get(format)! };
}

async function avatarImage(data: Buffer): Promise<ProcessedImage> {
  const sharp = await loadSharp();
  const { format, pages } = await inspect(sharp, data);
  const pipeline = open(sharp, data, format, pages)
    .rotate()
    .resize(avatarSize, avatarSize, { fit: 'cover', position: 'centre' });
  return { data: await render(pipeline), extension: extensions.get(format)! };
}

/**
 * A link preview's thumbnail from an image fetched off another site: the first frame, orientation
 * applied, fit inside 320×320 and never enlarged, transparency on white, JPEG without metadata.
 * Throws on anything sharp cannot read or that has more than maxImagePixels.
 */
async function previewThumbnail(data: Buffer): Promise<Buffer> {
  const sharp = await loadSharp();
  const meta = await sharp(data, { limitInputPixels: false }).metadata();
  if (!meta.format || !extensions.has(meta.format))
    throw new Error(`thumbnail: ${meta.format ?? 'unknown'} is not an accepted format`);
  if ((meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) > maxImagePixels)
    throw new Error('thumbnail: too many pixels');
  return sharp(data, { limitInputPixels: maxImagePixels, animated: false })
    .rotate()
    .resize(320, 320, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80 })
    .toBuffer();
}

export interface Images {
  entry(data: Buffer): Promise<ProcessedImage>;
  avatar(data: Buffer): Promise<ProcessedImage>;
  previewThumbnail(data: Buffer): Promise<Buffer>;
}

export function createSharpImages(slot: Semaphore): Images {
  return {
    entry: (data) => slot(() => entryImage(data)),
    avatar: (data) => slot(() => avatarImage(data)),
    previewThumbnail: (data) => slot(() => previewThumbnail(data)),
  };
}
