import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { changeInstance } from '../../lib/federation/instances.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { avatarSize, maxImageEdge, newAccountLinkDelaySeconds } from '../../lib/product.ts';
import { eventually, imageFixture, member, startBoard, visitor, type TestBoard } from '../helpers.ts';
import { startFakeInstance, type FakeInstance } from '../helpers/fake-instance.ts';
import { federatedEnv, federationWaitMs, freePorts, quickFederation } from '../helpers/federation.ts';

/**
 * docs/API.md "Remote entries", their images: a remote post's first image and its author's icon are
 * fetched once through the guarded client and kept as the board's own files, as an upload is kept;
 * a fetch that fails, or an image the upload rules or the entry gate refuse, leaves the entry
 * without one and the text comes in. Pages name only the board's own origin for images.
 */

/** BOARD_MAX_UPLOAD here: a remote image over it is refused as an upload over it is. */
const maxUpload = 256 * 1024;

describe('images of remote entries and authors', () => {
  let board: TestBoard;
  let fake: FakeInstance;
  let rootPid: number;
  const files: Record<string, { type: string; body: Buffer }> = {};

  before(async () => {
    files['/media/photo.png'] = {
      type: 'image/png',
      body: await imageFixture({ format: 'png', width: 2000, height: 1000 }),
    };
    files['/media/icon.jpg'] = { type: 'image/jpeg', body: await imageFixture({ width: 400, height: 300 }) };
    files['/media/page.html'] = { type: 'text/html', body: Buffer.from('<!doctype html><p>kein Bild</p>') };
    files['/media/broken.png'] = { type: 'image/png', body: Buffer.from('\x89PNG\r\n\x1a\nkaputt') };
    files['/media/huge.png'] = {
      type: 'image/png',
      body: Buffer.concat([await imageFixture({ format: 'png' }), Buffer.alloc(maxUpload)]),
    };
    const [boardPort, fakePort] = await freePorts(2);
    fake = await startFakeInstance(fakePort!, {
      files,
      actor: (name) => ({
        icon: { type: 'Image', mediaType: 'image/jpeg', url: `http://${fake.host}/media/icon.jpg?${name}` },
      }),
    });
    files['/media/icon.jpg?nora'] = files['/media/icon.jpg']!;
    for (const name of ['otto', 'paula', 'quinn', 'rita'])
      files[`/media/icon.jpg?${name}`] = files['/media/page.html']!;
    board = await startBoard(
      { ...federatedEnv(boardPort!, [boardPort!, fakePort!]), BOARD_MAX_UPLOAD: String(maxUpload) },
      { port: boardPort, federation: quickFederation },
    );
    changeInstance(board.app.services.db, fake.host, 'allow', administrator, board.clock.now());
    const anna = await member(board, 'Anna');
    const created = await anna.postMultipart('/api/entry/create', { content: 'Zeigt eure Bilder!' });
    assert.equal(created.status, 201);
    rootPid = created.body.pid as number;
  });
  after(async () => {
    await board?.close();
    await fake?.close();
  });

  let serial = 0;
  /** A Mastodon reply (app/serializers/activitypub/note_serializer.rb) by `name` with these attachments. */
  function reply(name: string, content: string, attachment: Record<string, unknown>[] = [], noteId?: string) {
    const actor = fake.actorOf(name);
    const id = noteId ?? `${actor}/statuses/${++serial}`;
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${id}/activity/${++serial}`,
      type: 'Create',
      actor,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      object: {
        id,
        type: 'Note',
        attributedTo: actor,
        inReplyTo: `${board.config.origin}/e/${rootPid}`,
        url: id,
        content: `<p>${content}</p>`,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        attachment,
      },
    };
  }
  const mastodonImage = (path: string, mediaType = 'image/png') => ({
    type: 'Document',
    mediaType,
    url: `http://${fake.host}${path}`,
    name: 'ein Bild',
    blurhash: 'UBL_:rOpGG-;~qRjWBay',
    width: 2000,
    height: 1000,
  });

  /** Sends a reply and waits until its entry is in the thread; returns the entry as the thread shows it. */
  async function delivered(activity: ReturnType<typeof reply>) {
    assert.equal((await fake.send(`${board.url}/ap/inbox`, activity)).status, 202);
    return eventually(
      `${activity.object.id} is in the thread`,
      async () => {
        const thread = await visitor(board).get(`/api/entry/${rootPid}/thread`);
        return thread.body.replies?.find(
          (entry: { remote?: { url: string } }) => entry.remote?.url === activity.object.url,
        );
      },
      federationWaitMs,
    );
  }

  const mediaFiles = (folder: string) =>
    existsSync(join(board.config.mediaDir, folder)) ? readdirSync(join(board.config.mediaDir, folder)).length : 0;

  test("a new author's reply comes in without its image; its icon is the author's avatar, kept on the board", async () => {
    const entry = await delivered(reply('nora', 'Mein erstes Foto', [mastodonImage('/media/photo.png')]));
    assert.equal(entry.content, 'Mein erstes Foto');
    assert.equal(entry.filepath, '', 'a new account posts no image at first');
    // Removed right after the write that left it out, which the thread may show a moment before.
    await eventually(
      'the fetched image is not left behind',
      () => mediaFiles('e') === 0 || undefined,
      federationWaitMs,
    );
    assert.match(entry.avatar, /^a\/[0-9a-f]{32}\.jpg$/);
    const avatar = await sharp(join(board.config.mediaDir, entry.avatar)).metadata();
    assert.deepEqual([avatar.width, avatar.height], [avatarSize, avatarSize], 'cropped as an uploaded avatar is');
    assert.equal(fake.fetches('/media/icon.jpg?nora'), 1);
  });

  test('past the new-account delay the first image is fetched once and stored as an upload is', async () => {
    board.clock.advance(newAccountLinkDelaySeconds + 60);
    const before = fake.fetches('/media/photo.png');
    const activity = reply('nora', 'Jetzt mit Bild', [
      { type: 'Document', mediaType: 'video/mp4', url: `http://${fake.host}/media/clip.mp4` },
      mastodonImage('/media/photo.png'),
      mastodonImage('/media/icon.jpg', 'image/jpeg'),
    ]);
    const entry = await delivered(activity);
    assert.match(entry.filepath, /^e\/[0-9a-f]{32}\.png$/);
    const stored = await sharp(join(board.config.mediaDir, entry.filepath)).metadata();
    assert.deepEqual([stored.format, stored.width, stored.height], ['png', maxImageEdge, maxImageEdge / 2]);
    assert.equal(fake.fetches('/media/photo.png'), before + 1);
    assert.equal(fake.fetches('/media/clip.mp4'), 0, 'a video is no image');
    assert.equal(fake.fetches('/media/icon.jpg?nora'), 1, "a known author's icon is not fetched again");
    // A second delivery of the same post (a retry, an Announce) fetches nothing again.
    const again = { ...activity, id: `${activity.id}/again` };
    assert.equal((await fake.send(`${board.url}/ap/inbox`, again)).status, 202);
    await eventually(
      'the second delivery is handled',
      () =>
        board.app.services.db.value<number>("SELECT count(*) FROM fedify_queue WHERE message LIKE '%/again%'") === 0 ||
        undefined,
      federationWaitMs,
    );
    assert.equal(fake.fetches('/media/photo.png'), before + 1, 'fetched once');
    assert.equal(mediaFiles('e'), 1);
  });

  test('a thread page with a remote image names only the board itself for images, and the CSP says so', async () => {
    const answer = await fetch(`${board.url}/e/${rootPid}`);
    assert.equal(answer.status, 200);
    const page = await answer.text();
    const sources = [...page.matchAll(/<img\b[^>]*\bsrc="([^"]*)"/g)].map((match) => match[1]!);
    assert.ok(
      sources.some((src) => /\/media\/e\/[0-9a-f]{32}\.png$/.test(src)),
      `the remote image is shown: ${sources}`,
    );
    assert.ok(
      sources.some((src) => /\/media\/a\/[0-9a-f]{32}\.jpg$/.test(src)),
      `the remote avatar is shown: ${sources}`,
    );
    for (const src of sources) assert.equal(new URL(src, board.url).origin, board.config.origin, src);
    assert.ok(!page.includes(`${fake.host}/media`), 'the other server’s media address is nowhere in the page');
    assert.match(answer.headers.get('content-security-policy') ?? '', /(^|; )img-src 'self' data: blob:(;|$)/);
  });

  test('an image that cannot be fetched or that the upload rules refuse leaves the entry without one', async () => {
    // Each author's first reply starts the new-account delay; their images come after it.
    const cases = {
      otto: '/media/page.html',
      paula: '/media/broken.png',
      quinn: '/media/huge.png',
      rita: '/media/gone.png',
    };
    for (const name of Object.keys(cases)) await delivered(reply(name, `Hallo von ${name}`));
    board.clock.advance(newAccountLinkDelaySeconds + 60);
    for (const [name, path] of Object.entries(cases)) {
      const entry = await delivered(reply(name, `Bild von ${name}`, [mastodonImage(path)]));
      assert.equal(entry.content, `Bild von ${name}`, path);
      assert.equal(entry.filepath, '', path);
      assert.equal(entry.avatar, '', `${name}'s icon is no image`);
      assert.equal(fake.fetches(path), 1, `${path} asked once`);
    }
    assert.equal(mediaFiles('e'), 1, 'only the one image kept before');
    assert.equal(mediaFiles('a'), 1, "only Nora's avatar");
  });
});
