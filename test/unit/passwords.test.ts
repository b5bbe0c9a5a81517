import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createScryptPasswords } from '../../lib/accounts/passwords.ts';

const { hash: hashPassword, verify: verifyPassword, dummyHash } = createScryptPasswords();

const format = /^\$scrypt\$ln=(\d+),r=8,p=1\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

test('a hash is a PHC-style string with the cost, a 16-byte salt and a 32-byte key', async () => {
  const hash = await hashPassword('correct horse battery', 14);
  const match = format.exec(hash);
  assert.ok(match, hash);
  assert.equal(match[1], '14');
  assert.equal(Buffer.from(match[2]!, 'base64').length, 16);
  assert.equal(Buffer.from(match[3]!, 'base64').length, 32);
});

test('the right password verifies and a wrong one does not', async () => {
  const hash = await hashPassword('correct horse battery', 14);
  assert.equal(await verifyPassword('correct horse battery', hash), true);
  assert.equal(await verifyPassword('correct horse batterY', hash), false);
  assert.equal(await verifyPassword('', hash), false);
});

test('the same password gets a different salt and hash each time', async () => {
  const [a, b] = await Promise.all([hashPassword('same password', 14), hashPassword('same password', 14)]);
  assert.notEqual(a, b);
  assert.notEqual(a.split('$')[3], b.split('$')[3]);
});

test('a hash keeps its own cost: one made with ln=14 still verifies after the default moved', async () => {
  const old = await hashPassword('raised later', 14);
  const current = await hashPassword('raised later', 15);
  assert.match(current, /^\$scrypt\$ln=15,/);
  assert.equal(await verifyPassword('raised later', old), true);
  assert.equal(await verifyPassword('raised later', current), true);
});

test('passwords are compared in Unicode normal form', async () => {
  const hash = await hashPassword('Jürgen-Passwort', 14);
  assert.equal(await verifyPassword('Ju\u0308rgen-Passwort', hash), true);
});

test('a malformed or absurd stored hash never verifies and never throws', async () => {
  const good = await hashPassword('pw', 14);
  const [, , , salt, key] = good.split('$');
  const bad = [
    '',
    'plaintext',
    '$2b$10$abcdefghijklmnopqrstuv',
    `$scrypt$ln=14,r=8,p=1$${salt}`,
    `$scrypt$ln=14,r=8$${salt}$${key}`,
    `$scrypt$ln=x,r=8,p=1$${salt}$${key}`,
    `$scrypt$ln=14,r=8,p=1$${salt}$${key}$extra`,
    `$scrypt$ln=14,r=8,p=1$***$${key}`,
    `$scrypt$ln=0,r=8,p=1$${salt}$${key}`,
    `$scrypt$ln=14,r=0,p=1$${salt}$${key}`,
    `$scrypt$ln=14,r=8,p=0$${salt}$${key}`,
    `$scrypt$ln=14,r=99999999,p=1$${salt}$${key}`,
    `$scrypt$ln=14,r=8,p=99999999$${salt}$${key}`,
    `$scrypt$ln=64,r=8,p=1$${salt}$${key}`,
    `$scrypt$ln=14,r=8,p=1$${salt}$${key!.slice(0, 8)}`,
    ` ${good}`,
  ];
  for (const stored of bad) {
    assert.equal(await verifyPassword('pw', stored), false, stored);
  }
});

test('the dummy hash for unknown users is a real hash at the requested cost', async () => {
  const hash = await dummyHash(14);
  assert.match(hash, /^\$scrypt\$ln=14,r=8,p=1\$/);
  assert.equal(await dummyHash(14), hash, 'made once per cost');
  assert.equal(await verifyPassword('', hash), false);
});
