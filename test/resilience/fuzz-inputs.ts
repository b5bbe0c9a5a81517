import { deflateSync } from 'node:zlib';
import { handMadePng, imageFixture, type ImageFormat } from '../helpers.ts';

/** Hostile and odd values for form fields and query parameters (strings; raw bytes come separately). */
export const fieldValues: readonly string[] = [
  '',
  ' ',
  '0',
  '1',
  '2',
  '-1',
  '-0',
  '007',
  '1.5',
  '1e3',
  '0x1f',
  '+1',
  ' 1',
  '1 ',
  '9007199254740993',
  '99999999999999999999999999',
  '-99999999999999999999',
  'NaN',
  'Infinity',
  'true',
  'false',
  'null',
  'undefined',
  '[]',
  '{}',
  '["yes"]',
  '{"mode":"yes"}',
  'yes',
  'no',
  'YES',
  'Yes ',
  'yes\u0000',
  'none',
  'a\u0000b',
  '\u0000',
  '%00',
  '%',
  '%zz',
  '%ff',
  '../../../etc/passwd',
  '..\\..\\board.db',
  '....//....//',
  '%2e%2e%2f',
  '/static/media/../board.db',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'; DROP TABLE users; --",
  "' OR '1'='1",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as plain text
  '${7*7}',
  '{{7*7}}',
  'ü'.repeat(1001),
  'a'.repeat(1000),
  'a'.repeat(1001),
  'x'.repeat(501),
  'x'.repeat(70_000),
  '\u202egnp.exe',
  '\ud800',
  '\udfff\ud800',
  '😀'.repeat(600),
  'e\u0301'.repeat(20),
  'Ω',
  '\r\n\r\n',
  '\t',
  'https://127.0.0.1:22/x',
  'http://[::1]/',
  'http://169.254.169.254/latest/meta-data/',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'file:///etc/passwd',
  'Fuzz Alice',
  'fuzz bob',
  'FUZZ ALICE ',
  'ab',
  'a'.repeat(33),
  'name/with/slash',
  'name..',
  'admin',
  'correct horse',
  'x'.repeat(1025),
  'A'.repeat(43),
  'A'.repeat(10_000),
];

/** Values for path parameters, already in their on-the-wire (percent-encoded or raw) form. */
export const pathValues: readonly string[] = [
  '0',
  '-1',
  '1.0',
  '1e2',
  '0x10',
  '00000000000000001',
  '9007199254740993',
  '999999999999999999999',
  'NaN',
  'null',
  'abc',
  '%20',
  '..',
  '.',
  '../',
  '..%2f',
  '..%2F..%2Fboard.db',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2fboard.db',
  '%2E%2E',
  '%00',
  'x%00.jpg',
  '1%00',
  '%2f',
  '%5c',
  '..%5c..%5cboard.db',
  '%252e%252e%252f',
  '%c0%ae%c0%ae%c0%af',
  '%ff',
  '%',
  '%zz',
  '%e2%80%ae',
  'a'.repeat(5000),
  '%u002e',
  '~',
  '*',
  'Fuzz%20Alice',
  'fuzz%20bob',
  'nobody',
  '%3Cscript%3E',
  '%22%3E%3Cimg%3E',
  '..;',
  ';jsessionid=1',
  'CON',
  'aux.txt',
];

/** Sub-paths for `/static/*` and `/static/media/*`: traversal in every spelling, hidden files, real files. */
export const starValues: readonly string[] = [
  '../board.db',
  '../../board.db',
  '..%2fboard.db',
  '%2e%2e/board.db',
  '%2e%2e%2fboard.db',
  '..%5cboard.db',
  '....//board.db',
  'e/../../board.db',
  'e%2f..%2f..%2fboard.db',
  '%00',
  'e/%00.jpg',
  '.hidden',
  'e/.x',
  '/etc/passwd',
  '//etc/passwd',
  '..',
  '.',
  '',
  'e/',
  'e',
  'e/does-not-exist.jpg',
  'preview/x.jpg',
  'a'.repeat(4000),
  '%c0%ae%c0%ae/board.db',
  '%252e%252e/board.db',
  'app.js',
  'style.css',
  'x%ff.png',
  '..\\board.db',
  'e\\..\\..\\board.db',
  'server.pid',
  '../server.pid',
];

/** Field names the board reads, plus some it does not. */
export const fieldNames: readonly string[] = [
  'content',
  'reply_to',
  'mode',
  'reason',
  'user',
  'pass',
  'pass1',
  'pass2',
  'timeout',
  'token',
  'file',
  'avatar',
  'Content',
  'content[]',
  'content\u0000',
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  'x'.repeat(300),
];

/** A GIF whose screen and only frame claim width×height, with a token of image data. */
function gifClaiming(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  return Buffer.concat([Buffer.from('GIF89a', 'latin1'), screen, descriptor, Buffer.from([2, 2, 0x4c, 0x01, 0, 0x3b])]);
}

/** A JPEG start (SOI, SOF0) claiming width×height, then nothing useful. */
function jpegClaiming(width: number, height: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0, 11, 8, height >> 8, height & 255, width >> 8, width & 255, 1, 1, 0x11, 0]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    sof,
    Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0]),
    Buffer.alloc(64, 0x55),
    Buffer.from([0xff, 0xd9]),
  ]);
}

export interface Upload {
  label: string;
  filename: string;
  type: string;
  data: Buffer;
}

/**
 * Files that are not what they claim, and bombs: text named .jpg, a truncated JPEG, a PNG
 * header with garbage, an SVG with script named .png, a GIF/HTML polyglot, an 8000×8000 PNG
 * that is valid and 64 KB (a real pixel bomb), headers claiming 30000×30000 and 65535×65535,
 * 1 MB of noise, and some valid small images so the happy path runs in between.
 */
export async function uploads(): Promise<Upload[]> {
  const solid = (format: ImageFormat) => imageFixture({ format, width: 30, height: 20, background: '#c33' });
  const [jpeg, pngSmall, gif, webp] = await Promise.all([solid('jpeg'), solid('png'), solid('gif'), solid('webp')]);
  const bombRows = deflateSync(Buffer.alloc(8000 * 8001), { level: 9 }); // 8000 rows of (filter byte + 8000 grey pixels)
  const noise = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
  return [
    { label: 'jpeg', filename: 'photo.jpg', type: 'image/jpeg', data: jpeg },
    { label: 'png', filename: 'image.png', type: 'image/png', data: pngSmall },
    { label: 'gif', filename: 'anim.gif', type: 'image/gif', data: gif },
    { label: 'webp', filename: 'image.webp', type: 'image/webp', data: webp },
    { label: 'text as jpg', filename: 'photo.jpg', type: 'image/jpeg', data: Buffer.from('this is not a picture\n') },
    {
      label: 'truncated jpeg',
      filename: 'cut.jpg',
      type: 'image/jpeg',
      data: jpeg.subarray(0, Math.floor(jpeg.length / 2)),
    },
    {
      label: 'png header with garbage',
      filename: 'x.png',
      type: 'image/png',
      data: Buffer.concat([pngSmall.subarray(0, 33), Buffer.alloc(500, 0xab)]),
    },
    {
      label: 'svg with script',
      filename: 'x.png',
      type: 'image/svg+xml',
      data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    },
    {
      label: 'gif/html polyglot',
      filename: 'x.gif',
      type: 'image/gif',
      data: Buffer.from('GIF89a/*<html><script>alert(1)</script></html>*/'),
    },
    {
      label: 'html',
      filename: 'index.html',
      type: 'text/html',
      data: Buffer.from('<!doctype html><script>alert(1)</script>'),
    },
    {
      label: 'png bomb 8000x8000 (valid)',
      filename: 'bomb.png',
      type: 'image/png',
      data: handMadePng(8000, 8000, 0, bombRows),
    },
    {
      label: 'png claiming 30000x30000',
      filename: 'bomb.png',
      type: 'image/png',
      data: handMadePng(30_000, 30_000, 2, deflateSync(Buffer.alloc(4096))),
    },
    { label: 'gif claiming 65535x65535', filename: 'bomb.gif', type: 'image/gif', data: gifClaiming(65_535, 65_535) },
    {
      label: 'jpeg claiming 65500x65500',
      filename: 'bomb.jpg',
      type: 'image/jpeg',
      data: jpegClaiming(65_500, 65_500),
    },
    { label: 'empty file', filename: 'empty.jpg', type: 'image/jpeg', data: Buffer.alloc(0) },
    { label: '1 MB noise', filename: 'noise.jpg', type: 'image/jpeg', data: noise },
    { label: 'png with nul name', filename: 'a\u0000b.png', type: 'image/png', data: pngSmall },
    { label: 'traversal name', filename: '../../../board.db', type: 'image/png', data: pngSmall },
  ];
}

export interface Part {
  name: string;
  value?: Buffer | string;
  filename?: string;
  type?: string;
  /** Replaces the whole part header block. */
  rawHeaders?: string;
}

/** A multipart body; `close` false leaves out the final boundary. */
export function multipart(boundary: string, parts: Part[], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const headers = part.rawHeaders ?? `${disposition}${part.type ? `\r\nContent-Type: ${part.type}` : ''}`;
    chunks.push(
      Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`, 'utf8'),
      Buffer.from(part.value ?? ''),
      Buffer.from('\r\n'),
    );
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
