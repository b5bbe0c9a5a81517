import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumented, useBoard } from '../helpers.ts';

/** README "Settings": BOARD_CONTACT reaches the front end as a data attribute of the page shell. */
describe('BOARD_CONTACT in the page shell', () => {
  const contact = 'Schreib an "Betrieb" <betrieb@example.org> & https://example.org/kontakt';
  const t = useBoard({ env: { BOARD_CONTACT: contact } });

  test('every page carries it, escaped for the attribute, and the bytes match Content-Length', async () => {
    for (const path of ['/', '/login', '/settings', '/no/such/page']) {
      const answer = await t.board.client().get(path);
      assertDocumented(answer);
      assert.match(
        answer.text,
        /<body data-contact="Schreib an &quot;Betrieb&quot; &lt;betrieb@example\.org&gt; &amp; https:\/\/example\.org\/kontakt">/,
        path,
      );
      assert.equal(Number(answer.headers.get('content-length')), Buffer.byteLength(answer.text), path);
      assert.equal(answer.text.match(/<body/g)?.length, 1, path);
    }
  });
});

describe('without BOARD_CONTACT', () => {
  const t = useBoard();

  test('the shell has no contact attribute (the front end then says to ask the operator)', async () => {
    const answer = await t.board.client().get('/login');
    assert.match(answer.text, /<body>/);
    assert.ok(!answer.text.includes('data-contact'));
  });
});
