import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../base/clock.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { createSnapshot } from './snapshot.ts';

/**
 * What a payreq process counts for Prometheus (docs/operations.md lists each metric and the
 * alerts worth setting). Counters move as things happen (requests, refusals, webhook attempts,
 * indexer passes); what sits in the database (the outbox, the trackers' and executors' work,
 * the pool) is read when Prometheus scrapes, so every process reports the deployment's queue,
 * not only its own share of it.
 *
 * Each process (each app in a test) has a registry of its own: prom-client's global registry
 * would make two apps in one process fight over the same metric names.
 */

/** Request latency buckets, in seconds: from a cached read to a slow RPC-bound `/pay`. */
const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What one webhook attempt came to: sent, to be tried again, or given up on for good. */
type AttemptOutcome = 'delivered' | 'retrying' | 'failed';

/** Where an indexer stands after reading the head: the node's head and its own checkpoint. */
interface IndexerProgress {
  readonly head: bigint;
  /** The highest block deep enough to scan (`head - confirmations`). */
  readonly target: bigint;
  /** The last block recorded; null before the first range. */
  readonly indexed: bigint | null;
}

export interface Metrics {
  /** The Prometheus content type of `scrape`'s text. */
  readonly contentType: string;
  /** Reads the database's part, then renders every metric in the text format. */
  scrape(): Promise<string>;
  /** One answered request: its route pattern (never the raw URL), status and duration. */
  httpRequest(answer: { method: string; route: string; status: number; seconds: number }): void;
  /** A request refused with 429 by a rate limit. */
  rateLimited(route: string): void;
  webhookAttempt(outcome: AttemptOutcome): void;
  indexerProgress(network: string, progress: IndexerProgress): void;
}

export function createMetrics(deps: { database: DatabaseHandle; clock: Clock }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'payreq_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'payreq_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being sent, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const refused = new Counter({
    name: 'payreq_rate_limited_total',
    help: 'Requests refused with 429 by a rate limit, by route pattern.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'payreq_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome: delivered, retrying (failed, tried again later), failed (given up).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const head = new Gauge({
    name: 'payreq_indexer_head_block',
    help: 'The latest block number the node reported to this process’s indexer, by network.',
    labelNames: ['network'] as const,
    registers: [registry],
  });
  const indexed = new Gauge({
    name: 'payreq_indexer_indexed_block',
    help: 'The last block this process’s indexer has recorded, by network.',
    labelNames: ['network'] as const,
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'payreq_indexer_lag_blocks',
    help: 'Blocks deep enough to scan (head minus confirmations) not yet recorded, by network; 0 when caught up.',
    labelNames: ['network'] as const,
    registers: [registry],
  });
  const snapshot = createSnapshot({ ...deps, registry });

  return {
    contentType: registry.contentType,
    async scrape() {
      await snapshot.refresh();
      return registry.metrics();
    },
    httpRequest({ method, route, status, seconds }) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    rateLimited(route) {
      refused.inc({ route });
    },
    webhookAttempt(outcome) {
      attempts.inc({ outcome });
    },
    indexerProgress(network, progress) {
      head.set({ network }, Number(progress.head));
      if (progress.indexed === null) return;
      indexed.set({ network }, Number(progress.indexed));
      const behind = progress.target - progress.indexed;
      lag.set({ network }, behind > 0n ? Number(behind) : 0);
    },
  };
}
