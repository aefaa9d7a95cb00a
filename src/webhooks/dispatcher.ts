import { inArray, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { WebhookConfig } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { type Database, queryRows } from '../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts';
import { type PostOutcome, postJson } from './post.ts';
import { deliveryHeaders } from './signature.ts';
import { literalRefusal, safeLookup } from './url-policy.ts';

/** Deliveries claimed per round. */
const BATCH_SIZE = 20;
/** A claim outlives the attempt's timeout by this much; after it another dispatcher may retry. */
const LEASE_MARGIN_MS = 30_000;
const USER_AGENT = 'payreq-webhooks/1';
/** Bound on opened secrets kept in memory. */
const MAX_CACHED_SECRETS = 10_000;

type WebhookRow = typeof webhooks.$inferSelect;

export interface Dispatcher {
  /** Sends what is due now; resolves with the number of attempts made. */
  runOnce(): Promise<number>;
  /** Polls every `pollMs` (and right away after `wake`). */
  start(pollMs: number): void;
  /** Asks for a round soon (new deliveries were written). */
  wake(): void;
  stop(): Promise<void>;
}

/** What one attempt came to, before it is written down. */
interface Settled {
  readonly row: Claimed;
  readonly hook: WebhookRow;
  readonly status: 'delivered' | 'failed' | 'pending';
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly at: Date;
  readonly nextAttemptAt: Date | null;
}

interface Claimed {
  id: string;
  webhook_id: string;
  body: string;
  test: boolean;
  attempts: number;
  created_at: Date | string;
}

/**
 * Sends the outbox. Each round claims due rows with `FOR UPDATE SKIP LOCKED` and a lease, in
 * one statement, so concurrent dispatchers (processes or loops) never take the same row; the
 * HTTP call happens after the claim commits, so no transaction stays open across the network.
 * A crash mid-send leaves the lease to expire and the row to be retried: delivery is
 * at-least-once, and the delivery id lets receivers drop the duplicate.
 */
export function createDispatcher(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  secretBox: SecretBox;
  config: WebhookConfig;
  random?: () => number;
}): Dispatcher {
  const random = deps.random ?? Math.random;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = true;
  let woken = false;
  let pollMs = 1_000;

  const delayAfter = (attempts: number): number => {
    const exponential = Math.min(
      deps.config.retryMaxMs,
      deps.config.retryBaseMs * 2 ** Math.max(0, attempts - 1),
    );
    return Math.round(exponential * (0.8 + 0.4 * random()));
  };

  const claim = async (now: Date): Promise<Claimed[]> => {
    const leaseEnd = new Date(now.getTime() + deps.config.timeoutMs + LEASE_MARGIN_MS);
    return queryRows<Claimed>(
      deps.db,
      sql`update ${webhookDeliveries}
          set locked_until = ${leaseEnd.toISOString()}, attempts = attempts + 1
          where id in (
            select id from ${webhookDeliveries}
            where status = 'pending' and next_attempt_at <= ${now.toISOString()}
              and (locked_until is null or locked_until <= ${now.toISOString()})
            order by next_attempt_at
            limit ${BATCH_SIZE}
            for update skip locked)
          returning id, webhook_id, body, test, attempts, created_at`,
    );
  };

  /** Opened secrets, keyed by their sealed form (a rotated secret is a new key). */
  const secrets = new Map<string, string>();
  const openSecret = (hook: WebhookRow): string => {
    let secret = secrets.get(hook.secretSealed);
    if (secret === undefined) {
      secret = deps.secretBox.open(hook.secretSealed, hook.id);
      if (secrets.size > MAX_CACHED_SECRETS) secrets.clear();
      secrets.set(hook.secretSealed, secret);
    }
    return secret;
  };

  const send = async (row: Claimed, hook: WebhookRow, sentAt: Date): Promise<PostOutcome> => {
    const refused = literalRefusal(hook.url, deps.config.allowLocal);
    if (refused !== null) return { kind: 'failed', error: refused };
    const secret = openSecret(hook);
    const timestamp = Math.floor(sentAt.getTime() / 1000);
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      ...deliveryHeaders({
        body: row.body,
        secret,
        deliveryId: row.id,
        retryCount: row.attempts - 1,
        test: row.test,
        timestamp,
      }),
    };
    return postJson(hook.url, row.body, headers, {
      timeoutMs: deps.config.timeoutMs,
      lookup: safeLookup(deps.config.allowLocal),
    });
  };

  /** Sends one claimed delivery and works out what to record; writes nothing. */
  const attempt = async (row: Claimed, hook: WebhookRow): Promise<Settled> => {
    const sentAt = deps.clock.now();
    const started = performance.now();
    // Whatever stops the send (a secret that no longer opens, a URL that no longer parses) is
    // a failed attempt like any other: recorded, retried, given up on in time.
    const outcome = await send(row, hook, sentAt).catch(
      (error: unknown): PostOutcome => ({
        kind: 'failed',
        error: `not sent: ${error instanceof Error ? error.message : String(error)}`,
      }),
    );
    const durationMs = Math.round(performance.now() - started);
    const statusCode = outcome.kind === 'answered' ? outcome.statusCode : null;
    const error =
      outcome.kind === 'failed'
        ? outcome.error
        : statusCode !== null && statusCode >= 300
          ? `HTTP ${statusCode}`
          : null;
    const delivered = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const now = deps.clock.now();
    const createdAt = new Date(row.created_at);
    const next = new Date(now.getTime() + delayAfter(row.attempts));
    const givingUp = !delivered && next.getTime() - createdAt.getTime() > deps.config.retryForMs;
    return {
      row,
      hook,
      status: delivered ? 'delivered' : givingUp ? 'failed' : 'pending',
      statusCode,
      error,
      durationMs,
      at: now,
      nextAttemptAt: delivered ? null : next,
    };
  };

  /**
   * Records a round's attempts in one transaction: one insert into the log, one update of the
   * deliveries. Until it commits the rows keep their leases, so a crash here means a resend
   * (at least once), never a lost delivery.
   */
  const record = async (settled: readonly Settled[]): Promise<void> => {
    if (settled.length === 0) return;
    const rows = sql.join(
      settled.map(
        (s) =>
          sql`(${s.row.id}, ${s.status}, ${s.statusCode}::integer, ${s.error}::text,
               ${s.status === 'delivered' ? s.at.toISOString() : null}::timestamptz,
               ${s.nextAttemptAt?.toISOString() ?? null}::timestamptz)`,
      ),
      sql`, `,
    );
    await deps.db.transaction(async (tx) => {
      await tx.insert(webhookAttempts).values(
        settled.map((s) => ({
          deliveryId: s.row.id,
          attempt: s.row.attempts,
          statusCode: s.statusCode,
          error: s.error,
          durationMs: s.durationMs,
          at: s.at,
        })),
      );
      await tx.execute(sql`
        update ${webhookDeliveries} as d
        set status = v.status::webhook_delivery_status,
            locked_until = null,
            last_status_code = v.status_code,
            last_error = v.error,
            delivered_at = coalesce(v.delivered_at, d.delivered_at),
            next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at)
        from (values ${rows}) as v(id, status, status_code, error, delivered_at, next_attempt_at)
        where d.id = v.id`);
    });
    for (const s of settled) {
      const log = {
        deliveryId: s.row.id,
        webhookId: s.hook.id,
        attempt: s.row.attempts,
        statusCode: s.statusCode,
        durationMs: s.durationMs,
      };
      if (s.status === 'delivered') deps.logger.info(log, 'webhook delivered');
      else if (s.status === 'failed')
        deps.logger.warn({ ...log, error: s.error }, 'webhook delivery failed for good');
      else
        deps.logger.info(
          { ...log, error: s.error, nextAttemptAt: s.nextAttemptAt?.toISOString() },
          'webhook attempt failed; will retry',
        );
    }
  };

  const runOnce = async (): Promise<number> => {
    const claimed = await claim(deps.clock.now());
    if (claimed.length === 0) return 0;
    const ids = [...new Set(claimed.map((row) => row.webhook_id))];
    const rows = await deps.db.select().from(webhooks).where(inArray(webhooks.id, ids));
    const hooks = new Map(rows.map((hook) => [hook.id, hook]));
    const live = (row: Claimed) => {
      const hook = hooks.get(row.webhook_id);
      return hook?.active && hook.deletedAt === null ? hook : null;
    };
    // Deliveries to an endpoint switched off or deleted since they were written: not sent.
    const orphaned = claimed.filter((row) => live(row) === null).map((row) => row.id);
    if (orphaned.length > 0) {
      await deps.db
        .update(webhookDeliveries)
        .set({
          status: 'failed',
          lockedUntil: null,
          lastError: 'the endpoint is inactive or deleted',
        })
        .where(inArray(webhookDeliveries.id, orphaned));
    }
    const settled = await Promise.all(
      claimed.flatMap((row) => {
        const hook = live(row);
        return hook === null ? [] : [attempt(row, hook)];
      }),
    );
    await record(settled);
    return claimed.length;
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(loop, ms);
  };
  const loop = () => {
    if (running) return;
    woken = false;
    running = runOnce()
      .catch((error: unknown) => {
        deps.logger.error({ err: error }, 'webhook dispatcher round failed');
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    // A wake during the round may concern rows the round had already missed: go again now.
    void running.then((count) => schedule(count === BATCH_SIZE || woken ? 0 : pollMs));
  };

  return {
    runOnce,
    start(ms) {
      pollMs = ms;
      stopped = false;
      schedule(0);
    },
    wake() {
      woken = true;
      schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
