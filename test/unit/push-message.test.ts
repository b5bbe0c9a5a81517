import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxPushTextLength } from '../../lib/product.ts';
import { pushPayload } from '../../lib/push/message.ts';

/** docs/API.md "Web Push": what a push says, and no more than the notification page shows. */

test('a push names the author and the kind, carries the text and the entry’s address', () => {
  assert.deepEqual(
    pushPayload({ kind: 'mention', pid: 7, username: 'Anna', content: '  Hallo @Bert!  ', filepath: '' }),
    {
      title: 'Anna hat dich erwähnt',
      body: 'Hallo @Bert!',
      url: '/e/7',
      tag: 'e7',
    },
  );
});

test(`a long text is cut after ${maxPushTextLength} code points, not UTF-16 units`, () => {
  const body = pushPayload({ kind: 'reply', pid: 1, username: 'Bert', content: '😀'.repeat(300), filepath: '' }).body;
  assert.equal([...body].length, maxPushTextLength + 1);
  assert.ok(body.endsWith('😀…'));
});

test('an image without text says so; a deleted account is named as the page names it', () => {
  const payload = pushPayload({ kind: 'thread_reply', pid: 3, username: '', content: '', filepath: 'e/x.jpg' });
  assert.equal(payload.title, 'Ein gelöschtes Konto hat in einem Thread geantwortet, dem du folgst');
  assert.equal(payload.body, 'Ein Bild');
});
