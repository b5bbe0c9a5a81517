import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bumpCooldownUntil } from '../../lib/entries/entries.ts';
import { newAccountLinksWait } from '../../lib/accounts/standing.ts';
import { frontEndLimits, frontEndLimitsFile, frontEndLimitsModule } from '../../lib/pages/front-end-limits.ts';
import * as product from '../../lib/product.ts';
import { mediaFormats } from '../../lib/media/files.ts';

/** The front end's modules, loaded as the page loads them (plain JavaScript, outside the TypeScript project). */
const served = (await import('../../web/static/limits.js' as string)) as Record<string, unknown>;
const rules = (await import('../../web/static/rules.js' as string)) as {
  usernameRule: string;
  passwordRule: string;
  bumpCooldownUntil(entry: { bump_count: number; last_bump: number }): number;
  newAccountLinkRule: string;
  inFirstMinutes(createdAt: number, now: number): boolean;
};

/**
 * Issue 30, "each limit once": the front end's limits are the server's (lib/product.ts),
 * written into web/static/limits.js by lib/pages/front-end-limits.ts, never a copy kept by hand.
 */

test('web/static/limits.js is what lib/pages/front-end-limits.ts writes from the product limits now', () => {
  assert.equal(
    readFileSync(frontEndLimitsFile, 'utf8'),
    frontEndLimitsModule(),
    'web/static/limits.js is out of date: run `make front-end-files`',
  );
});

test('the module the page imports holds every product limit with the value the server checks, and the upload types', () => {
  assert.deepEqual({ ...served }, frontEndLimits());
  assert.deepEqual({ ...served, imageTypes: undefined }, { ...product, imageTypes: undefined });
  assert.equal(served.maxContentLength, product.maxContentLength);
  assert.deepEqual(
    String(served.imageTypes).split(','),
    Object.values(mediaFormats).map((format) => format.type),
  );
});

test("the page's bump cooldown is the server's: at once before the first bump, then n days after the n-th", () => {
  const lastBump = 1_800_000_000;
  for (const bumps of [0, 1, 2, 7, 40]) {
    const entry = { bump_count: bumps, last_bump: bumps ? lastBump : 0 };
    assert.equal(rules.bumpCooldownUntil(entry), bumpCooldownUntil(entry), `${bumps} bumps`);
  }
  assert.equal(rules.bumpCooldownUntil({ bump_count: 3, last_bump: lastBump }), lastBump + 3 * 86_400);
});

test("the page's field hints name the server's username and password rules", () => {
  assert.match(
    rules.usernameRule,
    new RegExp(`^${product.minUsernameLength} bis ${product.maxUsernameLength} Zeichen`),
  );
  assert.equal(rules.passwordRule, `Mindestens ${product.minPasswordLength} Zeichen.`);
});

test("the composer's note on a new account's first minutes is the server's rule: its minutes, and when they end", () => {
  assert.match(
    rules.newAccountLinkRule,
    new RegExp(`In den ersten ${product.newAccountLinkDelaySeconds / 60} Minuten `),
  );
  const created = 1_800_000_000;
  for (const age of [0, 1, product.newAccountLinkDelaySeconds - 1, product.newAccountLinkDelaySeconds, 3600]) {
    const refused = newAccountLinksWait(created, created + age) > 0;
    assert.equal(rules.inFirstMinutes(created, created + age), refused, `${age} s old`);
  }
});
