import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import type { SecretBox } from '../base/secret-box.ts';
import type { WebhookConfig } from '../config/config.ts';
import type { AttemptRecord, Claimed } from './claims.ts';
import { type PostOutcome, postJson } from './post.ts';
import { deliveryHeaders } from './signature.ts';
import { literalRefusal, safeLookup } from './url-policy.ts';

const USER_AGENT = 'payreq-webhooks/1';
/** Characters of a receiver's answer the delivery log keeps. */
const EXCERPT_CHARACTERS = 500;

/** The start of a receiver's answer, for the delivery log; null for an empty one. */
function excerptOf(body: string): string | null {
  const excerpt = body.trim().slice(0, EXCERPT_CHARACTERS);
  return excerpt === '' ? null : excerpt;
}
/** Bound on opened secrets kept in memory. */
const MAX_CACHED_SECRETS = 10_000;
/**
 * The reference's retries (api-facts §1.5): 1 s, 5 s and 15 s after the first, second and third
 * failed attempt, exactly (no jitter), so receivers written for it recover as they expect.
 */
const REFERENCE_RETRY_DELAYS_MS = [1_000, 5_000, 15_000] as const;
const SECOND_MS = 1_000;

/**
 * When the attempt after `attempts` failed ones is due, `delay` ms from now, and whether to
 * try at all. The reference's three retries always happen; after them, an exponential
 * back-off from the endpoint's `retryBackoffSeconds` (doubling, capped at
 * `retryMaxDelaySeconds`, each delay varied by ±20 %) until `retryForSeconds` after the event,
 * each null field taking the deployment's `WEBHOOK_RETRY_*`.
 */
function retryDelayMs(
  config: WebhookConfig,
  row: Pick<Claimed, 'retry_backoff_seconds' | 'retry_max_delay_seconds'>,
  attempts: number,
  random: () => number,
): number {
  const reference = REFERENCE_RETRY_DELAYS_MS[attempts - 1];
  if (reference !== undefined) return reference;
  const base = secondsOr(row.retry_backoff_seconds, config.retryBaseMs);
  const max = secondsOr(row.retry_max_delay_seconds, config.retryMaxMs);
  const step = attempts - 1 - REFERENCE_RETRY_DELAYS_MS.length;
  const exponential = Math.min(max, base * 2 ** step);
  return Math.round(exponential * (0.8 + 0.4 * random()));
}

/** Whether an attempt due at `next` is past the endpoint's retry window (never the first 3). */
function pastWindow(config: WebhookConfig, row: Claimed, next: Date): boolean {
  if (row.attempts <= REFERENCE_RETRY_DELAYS_MS.length) return false;
  const window = secondsOr(row.retry_for_seconds, config.retryForMs);
  return next.getTime() - row.created_ms > window;
}

function secondsOr(seconds: number | null, fallbackMs: number): number {
  return seconds === null ? fallbackMs : seconds * SECOND_MS;
}

/**
 * One signed POST of `body` to `url`, under the URL policy and the attempt timeout: what every
 * attempt of the dispatcher sends, and the one-off sends that skip the outbox (an
 * orchestrator's test event). Never throws for the receiver's sake; a secret that does not
 * open is the caller's to catch.
 */
export function postSigned(
  config: WebhookConfig,
  input: {
    readonly url: string;
    readonly body: string;
    readonly secret: string;
    readonly deliveryId: string;
    readonly retryCount: number;
    readonly test: boolean;
    readonly sentAt: Date;
  },
): Promise<PostOutcome> {
  const refused = literalRefusal(input.url, config.allowLocal);
  if (refused !== null) return Promise.resolve({ kind: 'failed', error: refused });
  const headers: Record<string, string> = {
    'user-agent': USER_AGENT,
    ...deliveryHeaders({
      body: input.body,
      secret: input.secret,
      deliveryId: input.deliveryId,
      retryCount: input.retryCount,
      test: input.test,
      timestamp: Math.floor(input.sentAt.getTime() / 1000),
    }),
  };
  return postJson(input.url, input.body, headers, {
    timeoutMs: config.timeoutMs,
    lookup: safeLookup(config.allowLocal),
  });
}

/**
 * One attempt at a claimed delivery: signs its body, POSTs it, and works out what to record
 * (delivered, retried on the schedule of `retryDelayMs`, or given up on once the endpoint's
 * retry window has passed). Writes nothing: the dispatcher records attempts in batches.
 */
export function createAttempt(deps: {
  clock: Clock;
  logger: Logger;
  secretBox: SecretBox;
  config: WebhookConfig;
  random?: () => number;
  /** Told what each attempt came to (the process's metrics count them). */
  onAttempt?: (status: AttemptRecord['status']) => void;
}): (row: Claimed) => Promise<AttemptRecord> {
  const random = deps.random ?? Math.random;

  /** Opened secrets, keyed by their sealed form (a rotated secret is a new key). */
  const secrets = new Map<string, string>();
  const openSecret = (row: Claimed): string => {
    let secret = secrets.get(row.secret_sealed);
    if (secret === undefined) {
      secret = deps.secretBox.open(row.secret_sealed, row.webhook_id);
      if (secrets.size > MAX_CACHED_SECRETS) secrets.clear();
      secrets.set(row.secret_sealed, secret);
    }
    return secret;
  };

  // Async, so a secret that does not open rejects (and is recorded) rather than throws.
  const send = async (row: Claimed, sentAt: Date): Promise<PostOutcome> =>
    postSigned(deps.config, {
      url: row.url,
      body: row.body,
      secret: openSecret(row),
      deliveryId: row.id,
      retryCount: row.attempts - 1,
      test: row.test,
      sentAt,
    });

  /** Sends one claimed delivery and works out what to record; writes nothing. */
  const attempt = async (row: Claimed): Promise<AttemptRecord> => {
    const sentAt = deps.clock.now();
    const started = performance.now();
    // Whatever stops the send (a secret that no longer opens, a URL that no longer parses) is
    // a failed attempt like any other: recorded, retried, given up on in time.
    const outcome = await send(row, sentAt).catch(
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
    const next = new Date(now.getTime() + retryDelayMs(deps.config, row, row.attempts, random));
    const givingUp = !delivered && pastWindow(deps.config, row, next);
    const status = delivered ? 'delivered' : givingUp ? 'failed' : 'pending';
    const log = {
      deliveryId: row.id,
      webhookId: row.webhook_id,
      attempt: row.attempts,
      statusCode,
      durationMs,
    };
    deps.onAttempt?.(status);
    if (status === 'delivered') deps.logger.info(log, 'webhook delivered');
    else if (status === 'failed')
      deps.logger.warn({ ...log, error }, 'webhook delivery failed for good');
    else
      deps.logger.info(
        { ...log, error, nextAttemptAt: next.toISOString() },
        'webhook attempt failed; will retry',
      );
    return {
      deliveryId: row.id,
      attempt: row.attempts,
      status,
      statusCode,
      error,
      responseExcerpt: outcome.kind === 'answered' ? excerptOf(outcome.body) : null,
      durationMs,
      at: now,
      nextAttemptAt: delivered ? null : next,
    };
  };

  return attempt;
}
