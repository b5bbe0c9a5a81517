import type { Worker } from 'node:cluster';
import type { Registry } from 'prom-client';

type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];
import { defineJobMetrics, promClient } from '../../metrics/board-metrics.ts';
import type { MetricsSource } from '../../metrics/listener.ts';
import type { RunningJobs } from '../../jobs/once-jobs.ts';
import { slotLimits, type SlotPool } from '../../host/machine-slots.ts';
import type { SlotServer } from './slots-ipc.ts';

export interface MetricsMessage {
  board: 'metrics';
  id: number;
  metrics?: MetricJson[];
}

export interface ClusterMetrics extends MetricsSource {
  countRestart(): void;
  receive(message: MetricsMessage): void;
}

/** A worker that has not answered by then is left out of that scrape (it may be starting or stuck). */
const workerAnswerMs = 2_000;

/**
 * The primary's answer to a scrape: the serving workers' registries (asked over IPC) aggregated by
 * prom-client, with the primary's own figures. Why not AggregatorRegistry.clusterMetrics: a worker
 * still loading its modules drops the question, which failed every scrape while a worker was
 * replaced.
 */
export function createClusterMetrics(
  app: Parameters<typeof defineJobMetrics>[0],
  jobs: RunningJobs,
  slots: SlotServer,
  serving: () => Worker[],
): ClusterMetrics {
  const { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Registry } = promClient();
  const asked = new Map<number, (metrics: MetricJson[]) => void>();
  let nextId = 1;
  const own = new Registry();
  const registers = [own];
  collectDefaultMetrics({ register: own, prefix: 'board_primary_' });
  defineJobMetrics(app, jobs, registers);
  const pools = Object.keys(slotLimits) as SlotPool[];
  const slotGauge = (name: string, help: string, read: (pool: SlotPool) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers,
      collect() {
        for (const pool of pools) this.set({ pool }, read(pool));
      },
    });
  slotGauge(
    'board_machine_slots_running',
    'Password hashes (pool hash), registrations holding their hasher (pool registration, at most 1), image jobs (pool image) and searches (pool search) running on the machine, all workers together; at most 2 each otherwise.',
    (pool) => slots.load(pool).running,
  );
  slotGauge(
    'board_machine_slots_waiting',
    'Requests of all workers waiting for a machine slot.',
    (pool) => slots.load(pool).waiting,
  );
  slotGauge(
    'board_machine_slots_peak',
    "The most slots held at once since the start (never above the pool's bound).",
    (pool) => slots.load(pool).peak,
  );
  new Gauge({
    name: 'board_workers',
    help: 'Worker processes serving now (BOARD_WORKERS).',
    registers,
    collect() {
      this.set(serving().length);
    },
  });
  const restarts = new Counter({
    name: 'board_worker_restarts_total',
    help: 'Workers that died and were replaced.',
    registers,
  });

  const ask = (worker: Worker) =>
    new Promise<MetricJson[] | undefined>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        asked.delete(id);
        resolve(undefined);
      }, workerAnswerMs);
      asked.set(id, (metrics) => {
        clearTimeout(timer);
        asked.delete(id);
        resolve(metrics);
      });
      if (worker.isConnected()) worker.send({ board: 'metrics', id } satisfies MetricsMessage);
    });

  return {
    contentType: own.contentType,
    async metrics() {
      const answers = await Promise.all([...serving().map(ask), own.getMetricsAsJSON()]);
      return AggregatorRegistry.aggregate(answers.filter((a): a is MetricJson[] => a !== undefined)).metrics();
    },
    countRestart: () => restarts.inc(),
    receive(message) {
      if (message.metrics) asked.get(message.id)?.(message.metrics);
    },
  };
}
