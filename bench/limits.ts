import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDb } from '../lib/db/db.ts';
import { boardRateRules, createLimitStore, createRateLimiter } from '../lib/limits/rate-limit.ts';
import { checkWriteLimit } from '../lib/limits/write-limits.ts';

/**
 * The cost of the abuse limits per request (docs/SCALING.md "Reads and writes per core"): every limit counts in SQLite
 * (lib/limits/rate-limit.ts), so a limited write pays a small transaction of upserts. Measured on a file
 * database in WAL mode with the server's settings, over many accounts and addresses (a table of
 * realistic size), in microseconds per request. `node --import tsx bench/limits.ts` alone, and
 * part of `make bench`.
 */
export interface LimitCost {
  name: string;
  microseconds: number;
}

function measure(name: string, count: number, fn: (i: number) => void): LimitCost {
  for (let i = 0; i < Math.min(2000, count); i++) fn(i); // warm up: JIT and the statement cache
  const started = performance.now();
  for (let i = 0; i < count; i++) fn(i);
  return { name, microseconds: ((performance.now() - started) * 1000) / count };
}

export async function measureLimitCosts(count = 20_000): Promise<LimitCost[]> {
  const dir = mkdtempSync(join(tmpdir(), 'board-limits-bench-'));
  const db = openDb(join(dir, 'board.db'), { backgroundCheckpoints: true });
  try {
    const store = createLimitStore(db);
    const spec = createRateLimiter(store, boardRateRules);
    const now = Math.floor(Date.now() / 1000);
    const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const results = [
      measure('SPEC per-address limit (login, report): 1 counter', count, (i) => spec.hit('report', ip(i % 5000), now)),
      measure('write limit, create: 4 counters (2 per account, 2 per address)', count, (i) => {
        try {
          checkWriteLimit(store, 'create', { uid: (i % 5000) + 1, ip: ip(i % 5000) }, 1000, now);
        } catch {
          // over a limit now and then: refused writes cost the same work
        }
      }),
      measure('write limit, registration: 1 counter per address', count, (i) => {
        try {
          checkWriteLimit(store, 'register', { ip: ip(i) }, 1000, now);
        } catch {
          // as above
        }
      }),
    ];
    // A flood from one account: once a counter is full, refusals skip the database.
    const flood = { uid: 999_999, ip: '10.255.255.254' };
    results.push(
      measure('a refused write (its counter known full)', count, () => {
        try {
          checkWriteLimit(store, 'create', flood, 1, now);
        } catch {
          // refused: the case measured
        }
      }),
    );
    results.push({ name: `rows in the table afterwards: ${store.size().toLocaleString('en')}`, microseconds: NaN });
    return results;
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The markdown lines of the measurement. */
export function limitCostLines(costs: LimitCost[]): string[] {
  return costs.map((c) =>
    Number.isNaN(c.microseconds) ? `- ${c.name}` : `- ${c.name}: ${c.microseconds.toFixed(1)} µs per request`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(limitCostLines(await measureLimitCosts()).join('\n'));
}
