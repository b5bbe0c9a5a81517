import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import {
  assertDocumented,
  accountRemovalDone,
  assertError,
  imageFixture,
  limitsOff,
  mediaFiles,
  password,
  photoExif,
  useBoard,
  type Client,
  type TestBoard,
} from '../helpers.ts';

function userRow(board: TestBoard, username: string): { uid: number; last_login: number; avatar: string } | undefined {
  return board.app.services.db.one('SELECT uid, last_login, avatar FROM users WHERE username = ?', username);
}

/** A photo as a phone makes it: JPEG with camera EXIF and a GPS position. */
function photoWithGps(width = 640, height = 480): Promise<Buffer> {
  return imageFixture({ width, height, background: '#3a7', exif: photoExif });
}

function png(width: number, height: number): Promise<Buffer> {
  return imageFixture({ format: 'png', width, height, channels: 4, background: '#f80a' });
}

function uploadAvatar(client: Client, data: Buffer, filename = 'me.jpg', type = 'image/jpeg') {
  return client.postMultipart('/api/user/avatar', {}, [{ name: 'avatar', filename, type, data }]);
}

describe('user info', () => {
  const t = useBoard({ env: limitsOff });

  test('public info finds a user in any letter case and shows uid, username, created_at and avatar only', async () => {
    await t.board.client().signUp('Jürgen Maier');
    for (const name of ['Jürgen Maier', 'jürgen maier', 'JÜRGEN MAIER']) {
      const answer = await t.board.client().get(`/api/u/${encodeURIComponent(name)}/info`);
      assert.equal(answer.status, 200, `${name}: ${answer.text}`);
      assertDocumented(answer);
      assert.deepEqual(answer.body, {
        uid: userRow(t.board, 'Jürgen Maier')!.uid,
        username: 'Jürgen Maier',
        created_at: t.board.clock.now(),
        avatar: '',
      });
    }
  });

  test('public info of an unknown user answers 404 user.not_found', async () => {
    const answer = await t.board.client().get('/api/u/Niemand/info');
    assertError(answer, 404, 'user.not_found');
  });

  test('own info needs a session', async () => {
    const answer = await t.board.client().get('/api/user/info');
    assertError(answer, 401, 'auth.required');
  });

  test('last_login is 0 until the first login and then the login time', async () => {
    const client = t.board.client();
    await client.post('/api/auth/newuser', { user: 'Fresh', pass1: password, pass2: password });
    assert.equal(userRow(t.board, 'Fresh')!.last_login, 0);
    t.board.clock.advance(90);
    await client.post('/api/auth/login', { user: 'Fresh', pass: password });
    const info = await client.get('/api/user/info');
    assert.equal(info.status, 200);
    assertDocumented(info);
    // trust_level: issue 31 shows the account its own level (docs/API.md "Trust levels").
    assert.deepEqual(Object.keys(info.body).sort(), [
      'avatar',
      'created_at',
      'last_login',
      'trust_level',
      'uid',
      'username',
    ]);
    assert.equal(info.body.username, 'Fresh');
    assert.equal(info.body.last_login, t.board.clock.now());
    assert.equal(info.body.created_at, t.board.clock.now() - 90);
  });
});

describe('rename', () => {
  const t = useBoard({ env: limitsOff, members: ['Carla', 'Dieter'] });

  test('a rename answers the normalised new name and moves the public profile', async () => {
    const answer = await t.members.Carla.post('/api/user/rename', { user: '  Carla   Neu ' });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Carla Neu' });
    assert.equal((await t.board.client().get('/api/u/carla%20neu/info')).body.username, 'Carla Neu');
    assert.equal((await t.board.client().get('/api/u/Carla/info')).status, 404);
    assert.equal((await t.members.Carla.get('/api/user/info')).body.username, 'Carla Neu');
    assert.equal((await t.board.client().post('/api/auth/login', { user: 'carla neu', pass: password })).status, 200);
  });

  test('the old name is free again after a rename', async () => {
    assert.equal(
      (await t.board.client().post('/api/auth/newuser', { user: 'Carla', pass1: password, pass2: password })).status,
      201,
    );
  });

  test("another user's name in any letter case answers 409 user.name_taken", async () => {
    for (const user of ['Dieter', 'DIETER']) {
      const answer = await t.members.Carla.post('/api/user/rename', { user });
      assertError(answer, 409, 'user.name_taken');
    }
    assert.ok(userRow(t.board, 'Carla Neu'), 'the name did not change');
  });

  test('renaming to the own name in another letter case is fine', async () => {
    const answer = await t.members.Carla.post('/api/user/rename', { user: 'CARLA neu' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { username: 'CARLA neu' });
  });

  test('an invalid name answers 400 input.invalid for the field user', async () => {
    for (const user of ['', 'ab', 'x'.repeat(33), 'no/slash', 'a<b>c']) {
      const answer = await t.members.Carla.post('/api/user/rename', { user });
      assertError(answer, 400, 'input.invalid', { field: 'user', note: user });
    }
  });

  test('a rename needs a session', async () => {
    const answer = await t.board.client().post('/api/user/rename', { user: 'Hacker' });
    assertError(answer, 401, 'auth.required');
  });
});

describe('avatar', () => {
  const t = useBoard({ env: limitsOff });

  test('a JPEG becomes exactly 256×256 on disk, without EXIF or GPS, and is served with an image type', async () => {
    const client = await t.board.client().signUp('Photo Fan');
    const original = await photoWithGps();
    assert.ok((await sharp(original).metadata()).exif, 'the upload really carries EXIF');

    const answer = await uploadAvatar(client, original);
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.match(answer.body.avatar, /^a\/[0-9a-f]{32}\.jpg$/);
    assert.equal(userRow(t.board, 'Photo Fan')!.avatar, answer.body.avatar);
    assert.deepEqual(mediaFiles(t.board), [answer.body.avatar]);

    const stored = await sharp(join(t.board.config.mediaDir, answer.body.avatar)).metadata();
    assert.equal(stored.format, 'jpeg');
    assert.equal(stored.width, 256);
    assert.equal(stored.height, 256);
    assert.equal(stored.exif, undefined, 'EXIF (and with it GPS) is gone');

    const served = await t.board.client().get(`/static/media/${answer.body.avatar}`);
    assert.equal(served.status, 200);
    assertDocumented(served);
    assert.equal(served.headers.get('content-type'), 'image/jpeg');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.equal((await t.board.client().get('/api/u/photo%20fan/info')).body.avatar, answer.body.avatar);
  });

  test('a PNG stays a PNG, centre-cropped to 256×256; the old avatar file is removed', async () => {
    const client = await t.board.client().signUp('Png Person');
    const first = await uploadAvatar(client, await png(1000, 300), 'wide.png', 'image/png');
    assert.equal(first.status, 200, first.text);
    const second = await uploadAvatar(client, await png(100, 700), 'tall.png', 'image/png');
    assert.equal(second.status, 200, second.text);
    assert.match(second.body.avatar, /^a\/[0-9a-f]{32}\.png$/);
    assert.notEqual(second.body.avatar, first.body.avatar);
    assert.equal(existsSync(join(t.board.config.mediaDir, first.body.avatar)), false, 'the old file is gone');
    const stored = await sharp(join(t.board.config.mediaDir, second.body.avatar)).metadata();
    assert.deepEqual([stored.format, stored.width, stored.height], ['png', 256, 256]);
    const served = await t.board.client().get(`/static/media/${second.body.avatar}`);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal((await t.board.client().get(`/static/media/${first.body.avatar}`)).status, 404);
  });

  test('an animated GIF stays animated, every frame 256×256; a WebP stays a WebP', async () => {
    const client = await t.board.client().signUp('Gif Lover');
    const gif = await imageFixture({ format: 'gif', width: 300, height: 200, frames: ['#f00', '#0f0', '#00f'] });
    const answer = await uploadAvatar(client, gif, 'party.gif', 'image/gif');
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.body.avatar, /\.gif$/);
    const stored = await sharp(join(t.board.config.mediaDir, answer.body.avatar), { animated: true }).metadata();
    assert.deepEqual([stored.format, stored.width, stored.pageHeight, stored.pages], ['gif', 256, 256, 3]);

    const webp = await imageFixture({
      format: 'webp',
      width: 500,
      height: 400,
      background: '#456',
      exif: { IFD0: { Make: 'X' } },
    });
    const second = await uploadAvatar(client, webp, 'me.webp', 'image/webp');
    const storedWebp = await sharp(join(t.board.config.mediaDir, second.body.avatar)).metadata();
    assert.deepEqual(
      [storedWebp.format, storedWebp.width, storedWebp.height, storedWebp.exif],
      ['webp', 256, 256, undefined],
    );
    assert.equal(
      (await t.board.client().get(`/static/media/${second.body.avatar}`)).headers.get('content-type'),
      'image/webp',
    );
  });

  test('an image claiming more than 50 megapixels answers 413 upload.too_large before it is decoded', async () => {
    const client = await t.board.client().signUp('Bomb Thrower');
    const before = mediaFiles(t.board);
    const bomb = await imageFixture({ format: 'png', width: 1, height: 1, background: '#000' });
    bomb.writeUInt32BE(20_000, 16); // IHDR width
    bomb.writeUInt32BE(20_000, 20); // IHDR height
    const answer = await uploadAvatar(client, bomb, 'bomb.png', 'image/png');
    assertError(answer, 413, 'upload.too_large');
    assert.deepEqual(mediaFiles(t.board), before);
  });

  test('a small image is enlarged to 256×256', async () => {
    const client = await t.board.client().signUp('Tiny Pic');
    const answer = await uploadAvatar(client, await png(20, 10), 'tiny.png', 'image/png');
    const stored = await sharp(join(t.board.config.mediaDir, answer.body.avatar)).metadata();
    assert.deepEqual([stored.width, stored.height], [256, 256]);
  });

  test('a text file answers 400 upload.bad_type and writes nothing', async () => {
    const client = await t.board.client().signUp('Text Sender');
    const before = mediaFiles(t.board);
    const answer = await uploadAvatar(
      client,
      Buffer.from('just some words, not a picture\n'.repeat(50)),
      'me.jpg',
      'image/jpeg',
    );
    assertError(answer, 400, 'upload.bad_type');
    assert.deepEqual(mediaFiles(t.board), before);
    assert.equal(userRow(t.board, 'Text Sender')!.avatar, '');
  });

  test('an SVG is not accepted as an avatar', async () => {
    const client = await t.board.client().signUp('Svg Sender');
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><rect width="300" height="300" fill="red"/></svg>',
    );
    const answer = await uploadAvatar(client, svg, 'me.svg', 'image/svg+xml');
    assertError(answer, 400, 'upload.bad_type');
  });

  test('a missing file answers 400 for the field avatar', async () => {
    const client = await t.board.client().signUp('No File');
    const none = await client.postMultipart('/api/user/avatar', { note: 'hi' });
    assert.equal(none.status, 400);
    assert.equal(none.body.error.field, 'avatar');
    const emptyPart = await client.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: '', data: Buffer.alloc(0) },
    ]);
    assert.equal(emptyPart.status, 400, 'an empty part without filename is no file');
    assert.equal(emptyPart.body.error.field, 'avatar');
    const urlencoded = await client.post('/api/user/avatar', { avatar: 'x' });
    assert.equal(urlencoded.status, 400);
  });

  test('an avatar upload needs a session', async () => {
    const answer = await uploadAvatar(t.board.client(), await png(300, 300), 'a.png', 'image/png');
    assert.equal(answer.status, 401);
  });
});

describe('avatar size limit', () => {
  const t = useBoard({ env: { ...limitsOff, BOARD_MAX_UPLOAD: '100000' } });

  test('a body over BOARD_MAX_UPLOAD answers 413 upload.too_large and writes nothing', async () => {
    const client = await t.board.client().signUp('Big Uploader');
    const noise = await sharp(Buffer.from(Array.from({ length: 400 * 400 * 3 }, (_, i) => (i * 7919) % 251)), {
      raw: { width: 400, height: 400, channels: 3 },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    assert.ok(noise.length > 100_000);
    const answer = await uploadAvatar(client, noise, 'big.png', 'image/png');
    assertError(answer, 413, 'upload.too_large');
    // 100000 bytes are 97.66 KiB: the message names the setting's size, rounded down.
    assert.equal(answer.body.error.message, 'Die Datei ist zu groß: erlaubt sind höchstens 97,6 KiB.');
    assert.deepEqual(mediaFiles(t.board), []);
    assert.equal(userRow(t.board, 'Big Uploader')!.avatar, '');
    assert.equal((await client.get('/api/user/info')).status, 200, 'the server keeps answering');
  });
});

describe('account deletion', () => {
  const t = useBoard({ env: limitsOff });

  test('a wrong password answers 403 auth.bad_password and deletes nothing', async () => {
    const client = await t.board.client().signUp('Careful Clara');
    const answer = await client.post('/api/user/delete', { pass1: 'not my password' });
    assertError(answer, 403, 'auth.bad_password');
    assert.ok(userRow(t.board, 'Careful Clara'));
    assert.equal((await client.get('/api/user/info')).status, 200);
    assert.equal((await client.post('/api/user/delete')).status, 403, 'no password is a wrong password');
  });

  test('deletion removes the user, every session and the avatar file, clears the cookie and frees the name', async () => {
    const client = await t.board.client().signUp('Leaving Lou');
    const otherDevice = t.board.client();
    await otherDevice.post('/api/auth/login', { user: 'Leaving Lou', pass: password });
    const avatar = (await uploadAvatar(client, await photoWithGps(300, 300))).body.avatar as string;
    assert.ok(existsSync(join(t.board.config.mediaDir, avatar)));
    const { uid } = userRow(t.board, 'Leaving Lou')!;

    const answer = await client.post('/api/user/delete', { pass1: password });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { status: 'deleted' });
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('session='))!;
    assert.match(cookie, /^session=;/);
    assert.match(cookie, /Max-Age=0/);

    const db = t.board.app.services.db;
    assert.equal(db.one('SELECT uid FROM users WHERE uid = ?', uid), undefined);
    assert.equal(db.value('SELECT count(*) FROM sessions WHERE uid = ?', uid), 0);
    await accountRemovalDone(t.board);
    assert.equal(existsSync(join(t.board.config.mediaDir, avatar)), false);
    assert.equal((await otherDevice.get('/api/user/info')).status, 401);
    assert.equal((await otherDevice.get('/api/auth/sessioninfo')).status, 401);
    assert.equal((await t.board.client().get('/api/u/Leaving%20Lou/info')).status, 404);
    assert.equal((await t.board.client().post('/api/auth/login', { user: 'Leaving Lou', pass: password })).status, 401);

    const again = await t.board
      .client()
      .post('/api/auth/newuser', { user: 'leaving lou', pass1: password, pass2: password });
    assert.equal(again.status, 201);
  });

  test('deletion removes pending reset links of the user', async () => {
    const client = await t.board.client().signUp('Reset Then Leave');
    const { uid } = userRow(t.board, 'Reset Then Leave')!;
    t.board.app.services.db.run(
      'INSERT INTO reset_links (token_hash, uid, created_at, expires) VALUES (?, ?, ?, ?)',
      Buffer.alloc(32, 7),
      uid,
      0,
      t.board.clock.now() + 3600,
    );
    assert.equal((await client.post('/api/user/delete', { pass1: password })).status, 200);
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM reset_links WHERE uid = ?', uid), 0);
  });

  test('deletion needs a session', async () => {
    const answer = await t.board.client().post('/api/user/delete', { pass1: password });
    assert.equal(answer.status, 401);
  });
});
