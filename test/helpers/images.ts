import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import sharp, { type Color, type Exif } from 'sharp';

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp';

export interface ImageSpec {
  /** Default jpeg. */
  format?: ImageFormat;
  /** Default 64. */
  width?: number;
  /** Default 48. */
  height?: number;
  /** The fill: '#48c', '#f80a' (with alpha, for channels 4) or {r, g, b}; default '#48c'. */
  background?: Color;
  /** 4 keeps an alpha channel; default 3. */
  channels?: 3 | 4;
  /** An animated image instead: one fill per frame, each width×height, 100 ms apart. */
  frames?: string[];
  /** An SVG drawn over the fill. */
  overlay?: string;
  /** EXIF to write, e.g. a camera make or a GPS position. */
  exif?: Exif;
  /** XMP to write. */
  xmp?: string;
  /** The EXIF orientation tag (6: taken with the camera turned). */
  orientation?: number;
}

/** EXIF as a phone writes it: camera make and model, a description and a GPS position. */
export const photoExif: Exif = {
  IFD0: { Make: 'PhoneCo', Model: 'Snapper 3', ImageDescription: 'at home' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '13/1 24/1 0/1' },
};

/** A real image of one colour (or a few frames), made with sharp: the test fixture for every upload. */
export async function imageFixture(spec: ImageSpec = {}): Promise<Buffer> {
  const { format = 'jpeg', width = 64, height = 48, background = '#48c', channels = 3, frames } = spec;
  const solid = (fill: Color) => sharp({ create: { width, height, channels, background: fill } });
  let image = frames
    ? sharp(await Promise.all(frames.map((fill) => solid(fill).png().toBuffer())), { join: { animated: true } })
    : solid(background);
  if (spec.overlay) image = image.composite([{ input: Buffer.from(spec.overlay) }]);
  if (spec.orientation) image = image.withMetadata({ orientation: spec.orientation });
  if (spec.exif) image = image.withExif(spec.exif);
  if (spec.xmp) image = image.withXmp(spec.xmp);
  const delay = frames?.map(() => 100);
  // Frames of one colour each: the quickest GIF encoding (effort 1, no dithering) gives the same
  // frames and sizes at a third of the CPU (21 frames of 1000×1000: 0.45 s instead of 1.4 s).
  if (format === 'gif') return image.gif(delay && { delay, effort: 1, dither: 0 }).toBuffer();
  if (format === 'webp') return image.webp(delay && { delay }).toBuffer();
  return image[format]().toBuffer();
}

/**
 * A PNG written byte by byte with the given IHDR size and colour type and the given IDAT:
 * for headers that claim more than the data holds (decompression bombs).
 */
export function handMadePng(width: number, height: number, colourType: number, idat: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = colourType;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A new media path named as the board names its files (`preview/<32 hex>.jpg`), for a file a test puts there itself. */
export function boardMediaPath(
  folder: 'e' | 'a' | 'preview',
  extension: 'jpg' | 'png' | 'gif' | 'webp' = 'jpg',
): string {
  return `${folder}/${randomBytes(16).toString('hex')}.${extension}`;
}
