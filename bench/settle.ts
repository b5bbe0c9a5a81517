import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Waits, after a seed, until the machine has finished the work the seed left it: above all the
 * kernel writing the freshly written database back to disk (Dirty, Writeback in /proc/meminfo),
 * and any other background work of the machine (kernel threads count: on the benchmark machine a
 * DAMON `pageout` scheme then drops the seed's cold pages from the page cache). Why: started right
 * after seeding the 1M board (886 MiB written, about 600 MiB of it still dirty), the board's CPU
 * per cached answer was 30–44 µs for about a minute instead of 20–27 µs, and feed page 0 came out
 * at 0.77 × (0.50–0.92) of the same-bytes ceiling, against 1.00 × (0.69–1.19) on the settled
 * machine; writing 900 MB of an unrelated file did it too, freeing 2 GiB of memory did not
 * (bench/results.md "Settling after the seed"). The board's measurement is never shortened: this
 * only waits before it.
 *
 * Settled: no dirty or in-flight pages beyond `dirtyMb` and the whole machine (both cores, every
 * process, kernel threads included) busy under `busyPercent` of one core for `quietSeconds` on
 * end. Gives up after `maxSeconds` and says so (the run goes on, noted in the log).
 */
export interface SettleOptions {
  quietSeconds?: number;
  busyPercent?: number;
  dirtyMb?: number;
  maxSeconds?: number;
}

interface CpuTicks {
  busy: number;
  total: number;
}

function cpuTicks(): CpuTicks {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3]! + fields[4]!; // idle and iowait: waiting for the disk is not CPU work
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0); // user .. steal (guest is inside user)
  return { busy: total - idle, total };
}

function dirtyMb(): number {
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(meminfo)?.[1] ?? 0);
  return (kb('Dirty') + kb('Writeback')) / 1024;
}

/** Resolves once the machine is quiet (see above); returns the seconds waited. */
export async function settleMachine(options: SettleOptions = {}): Promise<number> {
  const { quietSeconds = 60, busyPercent = 5, dirtyMb: dirtyLimit = 16, maxSeconds = 300 } = options;
  const started = performance.now();
  execFileSync('sync'); // starts the write-back of everything now instead of after 30 s
  const cores = Math.max(1, readFileSync('/proc/stat', 'utf8').match(/^cpu\d+ /gm)?.length ?? 1);
  let quiet = 0;
  let before = cpuTicks();
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = cpuTicks();
    // Percent of one core: 100 × busy share × the number of cores (ticks are summed over all cores).
    const busy = (100 * cores * (now.busy - before.busy)) / Math.max(1, now.total - before.total);
    before = now;
    const dirty = dirtyMb();
    quiet = busy < busyPercent && dirty < dirtyLimit ? quiet + 1 : 0;
    const waited = (performance.now() - started) / 1000;
    if (quiet >= quietSeconds) {
      console.error(
        `settled after the seed in ${waited.toFixed(0)} s (quiet for ${quietSeconds} s: under ${busyPercent} % of a core busy, under ${dirtyLimit} MiB dirty)`,
      );
      return waited;
    }
    if (waited >= maxSeconds) {
      console.error(
        `not settled after ${maxSeconds} s (last second: ${busy.toFixed(0)} % of a core busy, ${dirty.toFixed(0)} MiB dirty); measuring anyway`,
      );
      return waited;
    }
  }
}
