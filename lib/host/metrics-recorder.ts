import type { Registry } from 'prom-client';
import type { ApiError } from '../errors.ts';

/**
 * What the request pipeline and the limits tell the metrics (lib/metrics/board-metrics.ts builds
 * it). Apart from the registry's builder so that lib/services.ts can name it without importing
 * the builder, which reads the services.
 */
export interface BoardMetrics {
  readonly registry: Registry;
  observeRequest(route: { readonly path: string } | undefined, method: string, status: number, seconds: number): void;
  countRefusal(limit: NonNullable<ApiError['options']['limit']>): void;
}
