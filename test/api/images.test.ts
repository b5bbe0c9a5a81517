import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { mediaFiles, rawRequest, type Answer, type Client, type TestBoard } from '../helpers.ts';
import { assertError, entryCount, entryRow, member, post, startEntryBoard, visitor } from '../entry-helpers.ts';

const maxUpload = 8 * 1024 * 1024; // the BOARD_MAX_UPLOAD default

/** The position again, as XMP (some apps write it there instead of EXIF). */
const xmpWithGps = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
  + '<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="52,31.0N"/></rdf:RDF></x:xmpmeta>';

/** A phone photo: 2000×1200 JPEG with camera EXIF and a GPS position (EXIF and XMP). */
function photoWithGps(): Promise<Buffer> {
  return sharp({ create: { width: 2000, height: 1200, channels: 3, background: '#c33' } })
    .jpeg()
    .withExif({
      IFD0: { Make: 'PhoneCo', Model: 'Snapper 3' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '13/1 24/1 0/1' },
    })
    .withXmp(xmpWithGps)
    .toBuffer();
}

/** An animated GIF of 3 frames, each width×height. */
async function animatedGif(width: number, height: number): Promise<Buffer> {
  const frames = await Promise.all(['#f00', '#0f0', '#00f'].map((background) =>
    sharp({ create: { width, height, channels: 3, background } }).png().toBuffer()));
  return sharp(frames, { join: { animated: true } }).gif({ delay: [100, 100, 100] }).toBuffer();
}

/** A PNG whose header claims 10000×10000 pixels (a decompression bomb) in a few hundred bytes. */
function pngBomb(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(10_000, 0);
  header.writeUInt32BE(10_000, 4);
  header[8] = 8; // 8-bit greyscale
  const rows = deflateSync(Buffer.alloc(10 * 10_001));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', rows), chunk('IEND', Buffer.alloc(0))]);
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
    if (part.filename !== undefined) head += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
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
  const withoutPadding = multipart([{ name: 'content', data: 'groß' }, { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image }, { name: 'padding', filename: 'pad.bin', data: '' }]).body.length;
  return [
    { name: 'content', data: 'groß' },
    { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image },
    { name: 'padding', filename: 'pad.bin', data: Buffer.alloc(size - withoutPadding, 0x61) },
  ];
}

describe('entry images', () => {
  let board: TestBoard;
  let anna: Client;
  before(async () => {
    board = await startEntryBoard();
    anna = await member(board, 'Anna');
  });
  after(() => board.close());

  function stored(filepath: string): Buffer {
    return readFileSync(join(board.config.mediaDir, filepath));
  }

  test('a 2000×1200 JPEG with GPS EXIF is stored at 1024×614 without any EXIF, under a random name', async () => {
    const photo = await photoWithGps();
    const input = await sharp(photo).metadata();
    assert.ok(input.exif?.includes(Buffer.from('PhoneCo')), 'the input carries the camera EXIF');
    assert.ok(hasGpsPointer(input.exif!), 'the input carries a GPS IFD');

    const answer = await upload(anna, photo, 'IMG_0001.jpg', 'image/jpeg', 'Urlaub');
    assert.equal(answer.status, 201, answer.text);
    assert.match(answer.body.filepath, /^e\/[0-9a-f]{32}\.jpg$/);
    assert.equal(answer.body.content, 'Urlaub');
    assert.equal(entryRow(board, answer.body.pid)!.filepath, answer.body.filepath);
    assert.deepEqual(mediaFiles(board), [answer.body.filepath]);

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
    const sideways = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#39f' } })
      .jpeg().withMetadata({ orientation: 6 }).toBuffer();
    assert.equal((await sharp(sideways).metadata()).orientation, 6);
    const answer = await upload(anna, sideways, 'quer.jpg', 'image/jpeg');
    assert.equal(answer.status, 201, answer.text);
    const output = await sharp(stored(answer.body.filepath)).metadata();
    assert.equal(output.width, 200);
    assert.equal(output.height, 300);
    assert.ok(output.orientation === undefined || output.orientation === 1);
  });

  test('a PNG and a WebP keep their format and lose their metadata, and a small image is not enlarged', async () => {
    const cases = [
      { format: 'png', data: await sharp({ create: { width: 120, height: 80, channels: 4, background: '#f80a' } }).png().withExif({ IFD0: { Make: 'PhoneCo' } }).withXmp(xmpWithGps).toBuffer() },
      { format: 'webp', data: await sharp({ create: { width: 120, height: 80, channels: 3, background: '#0a8' } }).webp().withExif({ IFD0: { Make: 'PhoneCo' } }).withXmp(xmpWithGps).toBuffer() },
    ];
    for (const { format, data } of cases) {
      // The name and the declared type say JPEG: the bytes decide.
      const answer = await upload(anna, data, 'täuschung.jpg', 'image/jpeg');
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
    const answer = await upload(anna, gif, 'lustig.gif', 'image/gif');
    assert.equal(answer.status, 201, answer.text);
    assert.match(answer.body.filepath, /^e\/[0-9a-f]{32}\.gif$/);
    const output = await sharp(stored(answer.body.filepath), { animated: true }).metadata();
    assert.equal(output.format, 'gif');
    assert.equal(output.pages, 3);
    assert.equal(output.width, 1024);
    assert.equal(output.pageHeight, 512);
  });

  test('an image-only entry needs no text', async () => {
    const answer = await upload(anna, await animatedGif(20, 20), 'x.gif', 'image/gif');
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.body.content, '');
  });

  test('the stored file is served at /static/media/<filepath> with its image type', async () => {
    const jpeg = await upload(anna, await photoWithGps(), 'a.jpg', 'image/jpeg');
    const gif = await upload(anna, await animatedGif(30, 20), 'b.gif', 'image/gif');
    for (const [answer, type] of [[jpeg, 'image/jpeg'], [gif, 'image/gif']] as const) {
      const res = await fetch(`${board.url}/static/media/${answer.body.filepath}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), type);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), stored(answer.body.filepath));
    }
  });

  test('a file part with an empty filename and no bytes is no file', async () => {
    const noFile = { name: 'file', filename: '', type: 'application/octet-stream', data: '' };
    const withText = await sendMultipart(anna, [{ name: 'content', data: 'nur Text' }, noFile]);
    assert.equal(withText.status, 201, withText.text);
    assert.equal(withText.body.filepath, '');
    assert.equal(entryRow(board, withText.body.pid)!.filepath, '');

    const before = entryCount(board);
    assertError(await sendMultipart(anna, [{ name: 'content', data: '' }, noFile]), 400, 'entry.empty');
    assertError(await sendMultipart(anna, [noFile]), 400, 'entry.empty');
    assert.equal(entryCount(board), before);
  });

  test('a reply with an image to an unknown entry answers 404 and keeps no file', async () => {
    const before = mediaFiles(board);
    const answer = await anna.postMultipart('/api/entry/create', { content: 'hallo', reply_to: 987654 }, [
      { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: await photoWithGps() },
    ]);
    assertError(answer, 404, 'entry.not_found');
    assert.deepEqual(mediaFiles(board), before);
  });
});

describe('refused uploads store nothing', () => {
  let board: TestBoard;
  let anna: Client;
  before(async () => {
    board = await startEntryBoard();
    anna = await member(board, 'Anna');
  });
  after(() => {
    board.app.services.db.setFault(undefined);
    return board.close();
  });

  /** No entry row and no media file were added since `entries` rows existed. */
  function assertNothingStored(entries = 0): void {
    assert.equal(entryCount(board), entries);
    assert.deepEqual(mediaFiles(board), []);
  }

  test('a text file answers 400 upload.bad_type, whatever its name and declared type', async () => {
    const text = Buffer.from('Das ist kein Bild.\n'.repeat(50));
    assertError(await upload(anna, text, 'notiz.txt', 'text/plain', 'mit Datei'), 400, 'upload.bad_type');
    assertError(await upload(anna, text, 'foto.jpg', 'image/jpeg', 'mit Datei'), 400, 'upload.bad_type');
    // Only the first bytes look like a JPEG.
    const fake = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), text]);
    assertError(await upload(anna, fake, 'kaputt.jpg', 'image/jpeg'), 400, 'upload.bad_type');
    assertNothingStored();
  });

  test('a body of BOARD_MAX_UPLOAD + 1 bytes answers 413 and stores nothing', async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).jpeg().toBuffer();
    const { body, contentType } = multipart(partsOfSize(maxUpload + 1, image));
    assert.equal(body.length, maxUpload + 1);
    const answer = await anna.send('POST', '/api/entry/create', body, { 'content-type': contentType });
    assertError(answer, 413, 'upload.too_large');
    assertNothingStored();
  });

  test('the same body sent chunked, without a Content-Length, is refused as it streams in', async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).jpeg().toBuffer();
    const { body, contentType } = multipart(partsOfSize(maxUpload + 1, image));
    const answer = await rawRequest(board.url, 'POST', '/api/entry/create', {
      'content-type': contentType,
      'transfer-encoding': 'chunked',
      cookie: `session=${anna.cookie}`,
      'x-forwarded-for': anna.ip!,
    }, body);
    assert.equal(answer.status, 413, answer.text);
    assert.equal(JSON.parse(answer.text).error.code, 'upload.too_large');
    assertNothingStored();
  });

  test('a multipart body cut off inside the file answers 400 input.invalid and the server keeps serving', async () => {
    const image = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } }).jpeg().toBuffer();
    const { body, contentType } = multipart([{ name: 'content', data: 'abgeschnitten' }, { name: 'file', filename: 'a.jpg', type: 'image/jpeg', data: image }]);
    const cut = body.subarray(0, body.length - 200); // no closing boundary: the file part never ends
    const answer = await anna.send('POST', '/api/entry/create', cut, { 'content-type': contentType });
    assertError(answer, 400, 'input.invalid');
    assertNothingStored(entryCount(board));
    assert.equal((await visitor(board).get('/api/entry/feed/0')).status, 200, 'the server is still up');
  });

  test('a client that hangs up in the middle of a body neither takes the server down nor counts as a server error', async () => {
    const before = entryCount(board);
    const bodies: [string, string][] = [
      ['multipart/form-data; boundary=xx', '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n' + 'a'.repeat(5000)],
      ['application/x-www-form-urlencoded', `content=${'a'.repeat(3000)}`],
    ];
    for (const [type, partial] of bodies) {
      const socket = connect(Number(new URL(board.url).port), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(`POST /api/entry/create HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: session=${anna.cookie}\r\nX-Forwarded-For: ${anna.ip}\r\n`
        + `Content-Type: ${type}\r\nContent-Length: 60000\r\n\r\n${partial}`);
      await new Promise((resolve) => setTimeout(resolve, 100)); // let the server start reading
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200)); // and notice the hang-up
      assert.equal((await visitor(board).get('/api/entry/feed/0')).status, 200, `${type}: the server is still up`);
    }
    assert.deepEqual(board.logs.filter((line) => line.startsWith('error')), []);
    assertNothingStored(before);
  });

  test('a body of exactly BOARD_MAX_UPLOAD bytes is accepted', async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).jpeg().toBuffer();
    const { body, contentType } = multipart(partsOfSize(maxUpload, image));
    assert.equal(body.length, maxUpload);
    const answer = await anna.send('POST', '/api/entry/create', body, { 'content-type': contentType });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(mediaFiles(board).length, 1);
    assert.equal((await anna.post(`/api/entry/${answer.body.pid}/delete`)).status, 200);
    assert.deepEqual(mediaFiles(board), []);
  });

  test('an image of more than 50 megapixels answers 413 upload.too_large', async () => {
    const before = entryCount(board);
    assertError(await upload(anna, pngBomb(), 'bombe.png', 'image/png'), 413, 'upload.too_large');
    assertNothingStored(before);
  });

  test('when the database write fails after the image was written, the file is removed again', async () => {
    const db = board.app.services.db;
    const before = entryCount(board);
    db.setFault((sql) => (sql.includes('INSERT INTO entries') ? new Error('disk I/O error') : undefined));
    try {
      assertError(await upload(anna, await photoWithGps(), 'a.jpg', 'image/jpeg'), 500, 'internal');
    } finally {
      db.setFault(undefined);
    }
    assertNothingStored(before);
    assert.ok((await post(anna, 'danach geht es wieder')) > 0);
  });

  test('anonymous uploads answer 401 and store nothing', async () => {
    const before = mediaFiles(board);
    assertError(await upload(visitor(board), await photoWithGps(), 'a.jpg', 'image/jpeg'), 401, 'auth.required');
    assert.deepEqual(mediaFiles(board), before);
  });
});
