import assert from 'node:assert/strict';
import { createECDH } from 'node:crypto';
import { test } from 'node:test';
import webPush from 'web-push';
import { openDb } from '../../lib/db/db.ts';
import { vapidKeys } from '../../lib/push/keys.ts';

/** lib/push/keys.ts: the board's VAPID key pair, made with node:crypto in the format web-push reads. */

test('a new key pair is a P-256 point and its 32-byte private key, which web-push signs with', async () => {
  const db = openDb(':memory:');
  try {
    // About one private key in 256 begins with a zero byte, which ECDH's own encoding leaves out.
    const lengths = new Set<number>();
    let leadingZeros = 0;
    for (let n = 0; n < 3000; n++) {
      db.run('DELETE FROM push_keys');
      const keys = vapidKeys(db, 1_800_000_000);
      const privateKey = Buffer.from(keys.privateKey, 'base64url');
      lengths.add(privateKey.length);
      if (privateKey[0] !== 0) continue;
      leadingZeros++;
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(privateKey);
      assert.equal(ecdh.getPublicKey('base64url'), keys.publicKey);
    }
    assert.deepEqual([...lengths], [32]);
    assert.ok(leadingZeros > 0, 'some private keys began with a zero byte');
    const keys = vapidKeys(db, 1_800_000_000);
    const headers = webPush.getVapidHeaders(
      'https://push.example',
      'mailto:board@example',
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
    );
    assert.match(headers.Authorization, /^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/);
  } finally {
    await db.close();
  }
});
