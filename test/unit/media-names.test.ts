import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boardMediaName, isMediaFormat, mediaHeadBytes } from '../../lib/media/files.ts';
import { boardMediaPath, handMadePng, imageFixture } from '../helpers.ts';

/** What counts as a media file the board writes (lib/media/files.ts): the one rule of the media route, backup, verify and restore. */

const hex = '0123456789abcdef0123456789abcdef';

test("the board's names: its three folders, 32 lower-case hex digits, its extensions (thumbnails JPEG only)", () => {
  for (const path of [
    `e/${hex}.jpg`,
    `e/${hex}.png`,
    `e/${hex}.gif`,
    `e/${hex}.webp`,
    `a/${hex}.webp`,
    `preview/${hex}.jpg`,
    boardMediaPath('a', 'gif'),
  ]) {
    assert.ok(boardMediaName(path), path);
  }
  assert.deepEqual(boardMediaName(`preview/${hex}.jpg`), { folder: 'preview', extension: 'jpg' });
  for (const path of [
    'a/x.html',
    'preview/y.svg',
    `a/${hex}.svg`,
    `a/${hex}.html`,
    `preview/${hex}.png`,
    `e/${hex}.jpeg`,
    `e/${hex}.JPG`,
    `e/${hex.toUpperCase()}.jpg`,
    `e/${hex.slice(1)}.jpg`,
    `e/${hex}0.jpg`,
    `x/${hex}.jpg`,
    `e/sub/${hex}.jpg`,
    `/e/${hex}.jpg`,
    `e/../a/${hex}.jpg`,
    `.held/e/${hex}.jpg`,
    `e/${hex}.jpg/`,
    `e/${hex}.jpg.html`,
    `e/${hex}.jpg\n`,
    `e/${hex}`,
    '',
  ]) {
    assert.equal(boardMediaName(path), undefined, JSON.stringify(path));
  }
});

test('the first bytes must be the format the extension names; text, SVG, another format or too few bytes are not', async () => {
  const images = {
    jpg: await imageFixture({ format: 'jpeg' }),
    png: await imageFixture({ format: 'png' }),
    gif: await imageFixture({ format: 'gif' }),
    webp: await imageFixture({ format: 'webp' }),
  };
  for (const [extension, bytes] of Object.entries(images) as [keyof typeof images, Buffer][]) {
    assert.ok(isMediaFormat(extension, bytes.subarray(0, mediaHeadBytes)), extension);
    for (const [other, otherBytes] of Object.entries(images)) {
      if (other !== extension)
        assert.equal(
          isMediaFormat(extension, otherBytes.subarray(0, mediaHeadBytes)),
          false,
          `${other} as ${extension}`,
        );
    }
    for (const text of ['<!doctype html><script>', '<svg xmlns="http://www.w3.org/2000/svg">', 'JPEGDATA', '']) {
      assert.equal(isMediaFormat(extension, Buffer.from(text)), false, `${JSON.stringify(text)} as ${extension}`);
    }
    assert.equal(isMediaFormat(extension, bytes.subarray(0, 2)), false, `two bytes of a ${extension}`);
  }
  assert.ok(isMediaFormat('png', handMadePng(1, 1, 2, Buffer.alloc(0)).subarray(0, mediaHeadBytes)));
  assert.equal(isMediaFormat('webp', Buffer.from('RIFF\0\0\0\0WAVEfmt ')), false, 'a RIFF file that is not WebP');
});
