import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) this process and every process below it have used so far: its own,
 * its living descendants' (Chromium, child servers) and those of the descendants already ended
 * and reaped. A test lane (.ci/test-lane.ts) takes the difference over one file, so a file's CPU
 * includes the Chromium and the programs it kept busy. Read from Linux's /proc; elsewhere only
 * this process's own time.
 */
export function treeCpuSeconds(): number {
  let stats: Map<number, ProcessStat>;
  try {
    stats = readProcessStats();
  } catch {
    const own = process.cpuUsage();
    return (own.user + own.system) / 1e6;
  }
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  let ticks = 0;
  const pending = [process.pid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    ticks += stats.get(pid)?.ticks ?? 0;
    pending.push(...(children.get(pid) ?? []));
  }
  return ticks / ticksPerSecond;
}

/** Linux reports process times in USER_HZ, which is 100 on every architecture Node runs on. */
const ticksPerSecond = 100;

interface ProcessStat {
  ppid: number;
  /** utime + stime + cutime + cstime: its own time and that of its reaped children. */
  ticks: number;
}

function readProcessStats(): Map<number, ProcessStat> {
  const stats = new Map<number, ProcessStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let line: string;
    try {
      line = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // The command name in parentheses may hold spaces and parentheses: the fields follow its last ')'.
    const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    stats.set(Number(name), { ppid: Number(fields[1]), ticks: utime! + stime! + cutime! + cstime! });
  }
  return stats;
}
