import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { maxGifFrames, maxGifPixels } from '../../lib/product.ts';
import {
  assertError,
  entryCount,
  entryRow,
  handMadePng,
  imageFixture,
  limitsOff,
  mediaFiles,
  photoExif,
  post,
  rawRequest,
  useBoard,
  visitor,
  type Answer,
  type Client,
} from '../helpers.ts';

const maxUpload = 8 * 1024 * 1024; // the BOARD_MAX_UPLOAD default

/** The position again, as XMP (some apps write it there instead of EXIF). */
const xmpWithGps =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="52,31.0N"/></rdf:RDF></x:xmpmeta>';

/** A phone photo: 2000×1200 JPEG with camera EXIF and a GPS position (EXIF and XMP). */
function photoWithGps(): Promise<Buffer> {
  return imageFixture({ width: 2000, height: 1200, background: '#c33', exif: photoExif, xmp: xmpWithGps });
}

/** An animated GIF of 3 frames, each width×height. */
function animatedGif(width: number, height: number): Promise<Buffer> {
  return imageFixture({ format: 'gif', width, height, frames: ['#f00', '#0f0', '#00f'] });
}

/** A PNG whose header claims 10000×10000 pixels (a decompression bomb) in a few hundred bytes. */
function pngBomb(): Buffer {
  return handMadePng(10_000, 10_000, 0, deflateSync(Buffer.alloc(10 * 10_001))); // 8-bit greyscale
}

/** True when a TIFF/EXIF block has the GPSInfo tag (0x8825) in either byte order. */
function hasGpsPointer(exif: Buffer): boolean {
  const bigEndian = exif.includes(Buffer.from('MM\u0000*', 'latin1'));
  return exif.includes(Buffer.from(bigEndian ? [0x88, 0x25] : [0x25, 0x88]));
}

interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: Buffer | string;
}

/** A multipart body written by hand, so a test controls every byte (empty filenames, exact sizes). */
function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = '----boardtest7d1f0a';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined)
      head += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function sendMultipart(client: Client, parts: Part[]): Promise<Answer> {
  const { body, contentType } = multipart(parts);
  return client.send('POST', '/api/entry/create', body, { 'content-type': contentType });
}

function upload(client: Client, data: Buffer, filename: string, type: string, content = ''): Promise<Answer> {
  return client.postMultipart('/api/entry/create', { content }, [{ name: 'file', filename, type, data }]);
}

/** Multipart parts whose encoded body is exactly `size` bytes: a small image plus a padding file part. */
function partsOfSize(size: number, image: Buffer): Part[] {
  const withoutPadding = multipart([
    { name: 'content', data: 'groß' },
    { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
    { name: 'padding', filename: 'pad.bin', data: '' },
  ]).body.length;
  return [
    { name: 'content', data: 'groß' },
    { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
    { name: 'padding', filename: 'pad.bin', data: Buffer.alloc(size - withoutPadding, 0x61) },
  ];
}

describe('entry images', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });

  function stored(filepath: string): Buffer {
    return readFileSync(join(t.board.config.mediaDir, filepath));
  }

  test('a 2000×1200 JPEG with GPS EXIF is stored at 1024×614 without any EXIF, under a random name', async () => {
    const photo = await photoWithGps();
    const input = await sharp(photo).metadata();
    assert.ok(input.exif?.includes(Buffer.from('PhoneCo')), 'the input carries the camera EXIF');
    assert.ok(hasGpsPointer(input.exif!), 'the input carries a GPS IFD');

    const answer = await upload(t.members.Anna, photo, 'IMG_0001.jpg', 'image/jpeg', 'Urlaub');
    assert.equal(answer.status, 201, answer.text);
    assert.match(answer.body.filepath, /^e\/[0-9a-f]{32}\.jpg$/);
    assert.equal(answer.body.content, 'Urlaub');
    assert.equal(entryRow(t.board, answer.body.pid)!.filepath, answer.body.filepath);
    assert.deepEqual(mediaFiles(t.board), [answer.body.filepath]);

    const file = stored(answer.body.filepath);
    const output = await sharp(file).metadata();
    assert.equal(output.format, 'jpeg');
    assert.equal(output.width, 1024);
    assert.equal(output.height, 614);
    assert.ok(input.xmp, 'the input carries XMP');
    assert.equal(output.exif, undefined, 'no EXIF (and so no GPS) in the stored file');
    assert.equal(output.xmp, undefined, 'no XMP either');
    assert.equal(file.includes(Buffer.from('PhoneCo')), false);
    assert.equal(file.includes(Buffer.from('GPSLatitude')), false);
    assert.equal(file.includes(Buffer.from('IMG_0001')), false);
  });

  test('the EXIF orientation is applied: an orientation-6 image comes out turned upright', async () => {
    const sideways = await imageFixture({ width: 300, height: 200, background: '#39f', orientation: 6 });
    assert.equal((await sharp(sideways).metadata()).orientation, 6);
    const answer = await upload(t.members.Anna, sideways, 'quer.jpg', 'image/jpeg');
    assert.equal(answer.status, 201, answer.text);
    const output = await sharp(stored(answer.body.filepath)).metadata();
    assert.equal(output.width, 200);
    assert.equal(output.height, 300);
    assert.ok(output.orientation === undefined || output.orientation === 1);
  });

  test('a PNG and a WebP keep their format and lose their metadata, and a small image is not enlarged', async () => {
    const cases = [
      {
        format: 'png',
        data: await imageFixture({
          format: 'png',
          width: 120,
          height: 80,
          channels: 4,
          background: '#f80a',
          exif: { IFD0: { Make: 'PhoneCo' } },
          xmp: xmpWithGps,
        }),
      },
      {
        format: 'webp',
        data: await imageFixture({
          format: 'webp',
          width: 120,
          height: 80,
          background: '#0a8',
          exif: { IFD0: { Make: 'PhoneCo' } },
          xmp: xmpWithGps,
        }),
      },
    ];
    for (const { format, data } of cases) {
      // The name and the declared type say JPEG: the bytes decide.
      const answer = await upload(t.members.Anna, data, 'täuschung.jpg', 'image/jpeg');
      assert.equal(answer.status, 201, answer.text);
      assert.match(answer.body.filepath, new RegExp(`^e/[0-9a-f]{32}\\.${format}$`));
      const input = await sharp(data).metadata();
      assert.ok(input.exif && input.xmp, `the ${format} input carries EXIF and XMP`);
      const output = await sharp(stored(answer.body.filepath)).metadata();
      assert.equal(output.format, format);
      assert.equal(output.width, 120);
      assert.equal(output.height, 80);
      assert.equal(output.exif, undefined, `no EXIF in the stored ${format}`);
      assert.equal(output.xmp, undefined, `no XMP in the stored ${format}`);
    }
  });

  test('an animated GIF keeps its frames, scaled to 1024 px', async () => {
    const gif = await animatedGif(1600, 800);
    assert.equal((await sharp(gif).metadata()).pages, 3);
    const answer = await upload(t.members.Anna, gif, 'lustig.gif', 'image/gif');
    assert.equal(answer.status, 201, answer.text);
    assert.match(answer.body.filepath, /^e\/[0-9a-f]{32}\.gif$/);
    const output = await sharp(stored(answer.body.filepath), { animated: true }).metadata();
    assert.equal(output.format, 'gif');
    assert.equal(output.pages, 3);
    assert.equal(output.width, 1024);
    assert.equal(output.pageHeight, 512);
  });

  test('an image-only entry needs no text', async () => {
    const answer = await upload(t.members.Anna, await animatedGif(20, 20), 'x.gif', 'image/gif');
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.body.content, '');
  });

  test('the stored file is served at /static/media/<filepath> with its image type', async () => {
    const jpeg = await upload(t.members.Anna, await photoWithGps(), 'a.jpg', 'image/jpeg');
    const gif = await upload(t.members.Anna, await animatedGif(30, 20), 'b.gif', 'image/gif');
    for (const [answer, type] of [
      [jpeg, 'image/jpeg'],
      [gif, 'image/gif'],
    ] as const) {
      const res = await fetch(`${t.board.url}/static/media/${answer.body.filepath}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), type);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), stored(answer.body.filepath));
    }
  });

  test('a file part with an empty filename and no bytes is no file', async () => {
    const noFile = { name: 'file', filename: '', type: 'application/octet-stream', data: '' };
    const withText = await sendMultipart(t.members.Anna, [{ name: 'content', data: 'nur Text' }, noFile]);
    assert.equal(withText.status, 201, withText.text);
    assert.equal(withText.body.filepath, '');
    assert.equal(entryRow(t.board, withText.body.pid)!.filepath, '');

    const before = entryCount(t.board);
    assertError(await sendMultipart(t.members.Anna, [{ name: 'content', data: '' }, noFile]), 400, 'entry.empty');
    assertError(await sendMultipart(t.members.Anna, [noFile]), 400, 'entry.empty');
    assert.equal(entryCount(t.board), before);
  });

  test('a reply with an image to an unknown entry answers 404 and keeps no file', async () => {
    const before = mediaFiles(t.board);
    const answer = await t.members.Anna.postMultipart('/api/entry/create', { content: 'hallo', reply_to: 987654 }, [
      { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: await photoWithGps() },
    ]);
    assertError(answer, 404, 'entry.not_found');
    assert.deepEqual(mediaFiles(t.board), before);
  });
});

describe('refused uploads store nothing', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });

  /** No entry row and no media file were added since `entries` rows existed. */
  function assertNothingStored(entries = 0): void {
    assert.equal(entryCount(t.board), entries);
    assert.deepEqual(mediaFiles(t.board), []);
  }

  test('a text file answers 400 upload.bad_type, whatever its name and declared type', async () => {
    const text = Buffer.from('Das ist kein Bild.\n'.repeat(50));
    assertError(await upload(t.members.Anna, text, 'notiz.txt', 'text/plain', 'mit Datei'), 400, 'upload.bad_type');
    assertError(await upload(t.members.Anna, text, 'foto.jpg', 'image/jpeg', 'mit Datei'), 400, 'upload.bad_type');
    // Only the first bytes look like a JPEG.
    const fake = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), text]);
    assertError(await upload(t.members.Anna, fake, 'kaputt.jpg', 'image/jpeg'), 400, 'upload.bad_type');
    assertNothingStored();
  });

  test('a body of BOARD_MAX_UPLOAD + 1 bytes answers 413 and stores nothing', async () => {
    const image = await imageFixture({ width: 8, height: 8, background: '#000' });
    const { body, contentType } = multipart(partsOfSize(maxUpload + 1, image));
    assert.equal(body.length, maxUpload + 1);
    const answer = await t.members.Anna.send('POST', '/api/entry/create', body, { 'content-type': contentType });
    assertError(answer, 413, 'upload.too_large');
    assert.equal(answer.body.error.message, 'Die Datei ist zu groß: erlaubt sind höchstens 8 MiB.', 'names the limit');
    assertNothingStored();
  });

  test('the same body sent chunked, without a Content-Length, is refused as it streams in', async () => {
    const image = await imageFixture({ width: 8, height: 8, background: '#000' });
    const { body, contentType } = multipart(partsOfSize(maxUpload + 1, image));
    const answer = await rawRequest(
      t.board.url,
      'POST',
      '/api/entry/create',
      {
        'content-type': contentType,
        'transfer-encoding': 'chunked',
        cookie: `session=${t.members.Anna.cookie}`,
        'x-forwarded-for': t.members.Anna.ip!,
      },
      body,
    );
    assertError(answer, 413, 'upload.too_large');
    assert.equal(JSON.parse(answer.text).error.message, 'Die Datei ist zu groß: erlaubt sind höchstens 8 MiB.');
    assertNothingStored();
  });

  test('a multipart body cut off inside the file answers 400 input.invalid and the server keeps serving', async () => {
    const image = await imageFixture({ width: 64, height: 64, background: '#000' });
    const { body, contentType } = multipart([
      { name: 'content', data: 'abgeschnitten' },
      { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
    ]);
    const cut = body.subarray(0, body.length - 200); // no closing boundary: the file part never ends
    const answer = await t.members.Anna.send('POST', '/api/entry/create', cut, { 'content-type': contentType });
    assertError(answer, 400, 'input.invalid');
    assertNothingStored(entryCount(t.board));
    assert.equal((await visitor(t.board).get('/api/entry/feed/0')).status, 200, 'the server is still up');
  });

  test('a client that hangs up in the middle of a body neither takes the server down nor counts as a server error', async () => {
    const before = entryCount(t.board);
    const bodies: [string, string][] = [
      [
        'multipart/form-data; boundary=xx',
        '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n' +
          'a'.repeat(5000),
      ],
      ['application/x-www-form-urlencoded', `content=${'a'.repeat(3000)}`],
    ];
    for (const [type, partial] of bodies) {
      const socket = connect(Number(new URL(t.board.url).port), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        `POST /api/entry/create HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: session=${t.members.Anna.cookie}\r\nX-Forwarded-For: ${t.members.Anna.ip}\r\n` +
          `Content-Type: ${type}\r\nContent-Length: 60000\r\n\r\n${partial}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100)); // let the server start reading
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200)); // and notice the hang-up
      assert.equal((await visitor(t.board).get('/api/entry/feed/0')).status, 200, `${type}: the server is still up`);
    }
    assert.deepEqual(
      t.board.logs.filter((line) => line.startsWith('error')),
      [],
    );
    assertNothingStored(before);
  });

  test('a body of exactly BOARD_MAX_UPLOAD bytes is accepted', async () => {
    const image = await imageFixture({ width: 8, height: 8, background: '#000' });
    const { body, contentType } = multipart(partsOfSize(maxUpload, image));
    assert.equal(body.length, maxUpload);
    const answer = await t.members.Anna.send('POST', '/api/entry/create', body, { 'content-type': contentType });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(mediaFiles(t.board).length, 1);
    assert.equal((await t.members.Anna.post(`/api/entry/${answer.body.pid}/delete`)).status, 200);
    assert.deepEqual(mediaFiles(t.board), []);
  });

  test('an image of more than 50 megapixels answers 413 upload.too_large', async () => {
    const before = entryCount(t.board);
    const bomb = await upload(t.members.Anna, pngBomb(), 'bombe.png', 'image/png');
    assertError(bomb, 413, 'upload.too_large');
    assert.equal(bomb.body.error.message, 'Das Bild ist zu groß: erlaubt sind höchstens 50 Megapixel.');
    assertNothingStored(before);
  });

  test('when the database write fails after the image was written, the file is removed again', async () => {
    const db = t.board.app.services.db;
    const before = entryCount(t.board);
    db.setFault((sql) => (sql.includes('INSERT INTO entries') ? new Error('disk I/O error') : undefined));
    try {
      assertError(await upload(t.members.Anna, await photoWithGps(), 'a.jpg', 'image/jpeg'), 500, 'internal');
    } finally {
      db.setFault(undefined);
    }
    assertNothingStored(before);
    assert.ok((await post(t.members.Anna, 'danach geht es wieder')) > 0);
  });

  test('anonymous uploads answer 401 and store nothing', async () => {
    const before = mediaFiles(t.board);
    assertError(await upload(visitor(t.board), await photoWithGps(), 'a.jpg', 'image/jpeg'), 401, 'auth.required');
    assert.deepEqual(mediaFiles(t.board), before);
  });
});

describe('animated GIF caps (finding 5 of the abuse review)', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'] });

  /** A GIF of `frames` frames of width×height, each another colour. */
  function gifOf(frames: number, width: number, height: number): Promise<Buffer> {
    return imageFixture({
      format: 'gif',
      width,
      height,
      frames: Array.from({ length: frames }, (_, i) => `#${((i * 4099) % 4096).toString(16).padStart(3, '0')}`),
    });
  }

  test(`more than ${maxGifFrames} frames, or more than ${maxGifPixels / 1e6} megapixels of frames in all, answers 413 upload.too_large and stores nothing`, async () => {
    const tooLong = await gifOf(maxGifFrames + 1, 8, 8);
    const tooBig = await gifOf(21, 1000, 1000); // 21 megapixels of frames in all
    for (const [what, gif] of [
      ['frames', tooLong],
      ['pixels', tooBig],
    ] as const) {
      const entry = await upload(t.members.Anna, gif, 'a.gif', 'image/gif');
      assertError(entry, 413, 'upload.too_large', { note: what });
      const avatar = await t.members.Anna.postMultipart('/api/user/avatar', {}, [
        { name: 'avatar', filename: 'a.gif', type: 'image/gif', data: gif },
      ]);
      assertError(avatar, 413, 'upload.too_large', { note: `avatar: ${what}` });
      for (const answer of [entry, avatar])
        assert.equal(
          answer.body.error.message,
          'Das animierte GIF ist zu lang: erlaubt sind höchstens 300 Einzelbilder mit zusammen 20 Megapixeln.',
          what,
        );
    }
    assert.equal(entryCount(t.board), 0);
    assert.deepEqual(mediaFiles(t.board), []);
  });

  test(`an honest animation fits: ${maxGifFrames} small frames are stored`, async () => {
    const answer = await upload(t.members.Anna, await gifOf(maxGifFrames, 16, 16), 'a.gif', 'image/gif');
    assert.equal(answer.status, 201, answer.text);
  });
});
