import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { JobDeps } from '../job-deps.ts';
import { defineJobMetrics } from '../metrics/board-metrics.ts';
import type { MetricsSource } from '../metrics/listener.ts';
import type { RunningJobs } from '../once-jobs.ts';
import { slotLimits, type SlotPool } from '../slots.ts';
import type { SlotServer } from './slots.ts';

export interface ClusterMetrics extends MetricsSource {
  /** A worker died and was replaced (or is about to be). */
  countRestart(): void;
}

/**
 * The primary's answer to a scrape: every worker's registry through prom-client's
 * AggregatorRegistry (per-worker series, labelled worker="1".."N"), then the primary's own: the
 * database and once-job figures (read once here, not once per worker), the machine's slots, the
 * workers, and its own process figures as board_primary_* (the workers' keep Node's names).
 */
export function createClusterMetrics(app: JobDeps & { config: Config }, jobs: RunningJobs, slots: SlotServer, workers: () => number): ClusterMetrics {
  const aggregator = new AggregatorRegistry();
  const own = new Registry();
  const registers = [own];
  collectDefaultMetrics({ register: own, prefix: 'board_primary_' });
  defineJobMetrics(app, jobs, registers);
  const pools = Object.keys(slotLimits) as SlotPool[];
  const slotGauge = (name: string, help: string, read: (pool: SlotPool) => number) => new Gauge({
    name, help, labelNames: ['pool'], registers,
    collect() {
      for (const pool of pools) this.set({ pool }, read(pool));
    },
  });
  slotGauge('board_machine_slots_running', 'Password hashes (pool hash) and image jobs (pool image) running on the machine, all workers together; at most 2 each.', (pool) => slots.load(pool).running);
  slotGauge('board_machine_slots_waiting', 'Requests of all workers waiting for a machine slot.', (pool) => slots.load(pool).waiting);
  slotGauge('board_machine_slots_peak', 'The most slots held at once since the start (never above the pool\'s bound).', (pool) => slots.load(pool).peak);
  new Gauge({
    name: 'board_workers', help: 'Worker processes serving now (BOARD_WORKERS).', registers,
    collect() {
      this.set(workers());
    },
  });
  const restarts = new Counter({ name: 'board_worker_restarts_total', help: 'Workers that died and were replaced.', registers });

  return {
    contentType: aggregator.contentType,
    async metrics() {
      const [fromWorkers, fromPrimary] = await Promise.all([aggregator.clusterMetrics(), own.metrics()]);
      return `${fromWorkers.trimEnd()}\n${fromPrimary.trimEnd()}\n`;
    },
    countRestart: () => restarts.inc(),
  };
}
