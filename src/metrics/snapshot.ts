import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../base/clock.ts';
import { type DatabaseHandle, queryRows } from '../db/client.ts';

/**
 * The metrics read from the database at each scrape: the webhook outbox, the work the
 * executors and trackers have in flight, and the connection pools. Two statements, each
 * answered from an index (the outbox's pending-only index, the trackers' status indexes) except
 * the off-ramp's transfers, a small table read whole; they run only when Prometheus asks, so an
 * idle scrape interval costs nothing.
 */

/** The off-ramp transfers' states before the provider reports fiat sent, failed or bounced. */
const OFFRAMP_IN_FLIGHT = [
  'awaiting_funds',
  'initiated',
  'pending_internal_assessment',
  'ongoing_checks',
  'sending_fiat',
  'retry_required',
] as const;

/** The states each worker still has work in, by the table that holds it. Terminal ones are left out. */
const IN_FLIGHT: readonly { worker: string; states: readonly string[] }[] = [
  { worker: 'recurring_payouts', states: ['pending', 'active', 'paused'] },
  { worker: 'safe_tracker', states: ['tracking'] },
  { worker: 'bridge_tracker', states: ['bridging', 'delivered'] },
  { worker: 'commerce_actions', states: ['pending', 'sent'] },
  { worker: 'offramp', states: OFFRAMP_IN_FLIGHT },
];

interface OutboxRow {
  readonly pending: number;
  readonly due: number;
  readonly oldest_created_ms: number | null;
  readonly oldest_due_ms: number | null;
  readonly recurring_due: number;
}

interface StateRow {
  readonly worker: string;
  readonly state: string;
  readonly n: number;
}

export interface Snapshot {
  /** Reads the database and sets the gauges; a failed read sets `payreq_database_up` to 0. */
  refresh(): Promise<void>;
}

export function createSnapshot(deps: {
  database: DatabaseHandle;
  clock: Clock;
  registry: Registry;
}): Snapshot {
  const gauge = (name: string, help: string, labelNames: readonly string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [deps.registry] });
  const up = gauge('payreq_database_up', '1 when the last scrape read the database, else 0.');
  const readTime = gauge(
    'payreq_database_scrape_seconds',
    'Time the last scrape’s database reads took: how long any query waits for a connection and an answer.',
  );
  const pending = gauge(
    'payreq_outbox_pending',
    'Webhook deliveries not yet delivered or given up on (the outbox’s depth).',
  );
  const due = gauge(
    'payreq_outbox_due',
    'Pending webhook deliveries whose next attempt is due now: the dispatchers’ backlog.',
  );
  const oldest = gauge(
    'payreq_outbox_oldest_pending_age_seconds',
    'Age of the oldest pending webhook delivery (0 when none is pending).',
  );
  const late = gauge(
    'payreq_outbox_oldest_due_lag_seconds',
    'How long the longest-waiting due delivery has been due (0 when none is).',
  );
  const recurringDue = gauge(
    'payreq_recurring_due',
    'Active recurring payouts whose next payment is due now and not yet executed.',
  );
  const work = gauge(
    'payreq_work_items',
    'Rows an executor or tracker still has work in, by worker and state.',
    ['worker', 'state'],
  );
  const connections = gauge(
    'payreq_database_connections',
    'Postgres connections of this process by pool (main, queue) and state (total, idle, waiting: requests waiting for one).',
    ['pool', 'state'],
  );

  const readOutbox = (now: Date) => {
    const at = now.toISOString();
    return queryRows<OutboxRow>(
      deps.database.db,
      sql`select
            (select count(*) from webhook_deliveries where status = 'pending')::int as pending,
            (select count(*) from webhook_deliveries
              where status = 'pending' and next_attempt_at <= ${at}::timestamptz)::int as due,
            (select extract(epoch from min(created_at)) * 1000 from webhook_deliveries
              where status = 'pending')::float8 as oldest_created_ms,
            (select extract(epoch from min(next_attempt_at)) * 1000 from webhook_deliveries
              where status = 'pending' and next_attempt_at <= ${at}::timestamptz)::float8 as oldest_due_ms,
            (select count(*) from recurring_payouts
              where status = 'active' and next_payment_at <= ${at}::timestamptz)::int as recurring_due`,
    );
  };

  const readStates = () =>
    queryRows<StateRow>(
      deps.database.db,
      sql`select 'recurring_payouts' as worker, status::text as state, count(*)::int as n
            from recurring_payouts where status in ('pending', 'active', 'paused') group by status
          union all
          select case when status = 'tracking' then 'safe_tracker' else 'bridge_tracker' end,
                 status, count(*)::int
            from payment_intents where status in ('tracking', 'bridging', 'delivered')
            group by status
          union all
          select 'commerce_actions', status, count(*)::int
            from commerce_actions where status in ('pending', 'sent') group by status
          union all
          select 'offramp', status, count(*)::int from offramp_transfers
            where status in (${sql.join(
              OFFRAMP_IN_FLIGHT.map((state) => sql`${state}`),
              sql`, `,
            )})
            group by status`,
    );

  const setPool = (name: string, pool: pg.Pool) => {
    connections.set({ pool: name, state: 'total' }, pool.totalCount);
    connections.set({ pool: name, state: 'idle' }, pool.idleCount);
    connections.set({ pool: name, state: 'waiting' }, pool.waitingCount);
  };

  return {
    async refresh() {
      const engine = deps.database.engine;
      if (engine.kind === 'postgres') {
        setPool('main', engine.pool);
        setPool('queue', engine.queuePool);
      }
      const now = deps.clock.now();
      const started = performance.now();
      try {
        const [[outbox], states] = await Promise.all([readOutbox(now), readStates()]);
        if (!outbox) throw new Error('the outbox read returned no row');
        up.set(1);
        pending.set(outbox.pending);
        due.set(outbox.due);
        oldest.set(ageSeconds(now, outbox.oldest_created_ms));
        late.set(ageSeconds(now, outbox.oldest_due_ms));
        recurringDue.set(outbox.recurring_due);
        // Every in-flight state is reported, at 0 when no row is in it, so an alert on a state
        // sees it fall back to nothing rather than vanish.
        for (const { worker, states: names } of IN_FLIGHT) {
          for (const state of names) work.set({ worker, state }, 0);
        }
        for (const row of states) work.set({ worker: row.worker, state: row.state }, row.n);
      } catch {
        // The process still answers with what it counted itself; the gauge says the rest is stale.
        up.set(0);
      } finally {
        readTime.set((performance.now() - started) / 1000);
      }
    },
  };
}

function ageSeconds(now: Date, sinceMs: number | null): number {
  return sinceMs === null ? 0 : Math.max(0, (now.getTime() - sinceMs) / 1000);
}
