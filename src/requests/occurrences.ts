import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import { createPoller } from '../base/poller.ts';
import { occurrenceDate } from '../base/recurrence.ts';
import type { Database } from '../db/client.ts';
import { requestSchedules, requests } from '../db/schema.ts';
import {
  mintRequestId,
  mintSalt,
  paymentReference,
  referenceTopic,
} from '../payments/references.ts';
import { enqueueRecurringEvent } from './recurring-event.ts';
import type { RequestRow } from './requests.ts';

/**
 * The generator of recurring requests' occurrences. A round, one transaction, takes up to
 * `ROUND_SIZE` due schedules (not stopped, `next_at` passed on the injected clock), oldest date
 * first, locked `FOR UPDATE SKIP LOCKED` so several processes on one Postgres share the work
 * without waiting on each other, and for each one makes occurrence `next_occurrence`: a copy of
 * the original with its own id and payment reference, its `request.recurring` delivery in the
 * outbox, and the schedule moved to the next index, all or nothing. The insert is conditional
 * on the unique (original, occurrence) key, so even a generator that somehow got past the lock
 * cannot make an occurrence twice; the schedule still moves on.
 *
 * Catch-up: after downtime every missed occurrence is made, in date order, one per schedule per
 * round (so one long backlog never starves the other schedules), rounds following each other
 * until nothing is due, in transactions of at most `ROUND_SIZE` occurrences. A daily schedule
 * whose process was down for a month gets its thirty occurrences, oldest first, as soon as the
 * process is back (the events' `timestamp` is when each was made). Nothing is skipped: each
 * occurrence is a bill the payee is owed; only a stop (`PATCH`) skips dates.
 */

/** Schedules served per round (each gets one occurrence). */
export const ROUND_SIZE = 50;
/**
 * Rounds in a row per tick: a tick makes at most 1,000 occurrences; one that reaches the bound
 * with work left is followed by the next at once.
 */
const MAX_ROUNDS_PER_TICK = 20;
/** How often a process looks for due occurrences. */
const POLL_MS = 30_000;

interface Generated {
  readonly originalRequestId: string;
  readonly requestId: string;
  readonly occurrence: number;
}

interface Tick {
  /** What this process made. */
  readonly generated: readonly Generated[];
  /** Whether the tick stopped at its bound with work left. */
  readonly more: boolean;
}

export interface OccurrenceGenerator {
  /** Makes what is due now; resolves with what this process made. */
  tick(): Promise<Tick>;
  start(): void;
  stop(): Promise<void>;
}

export interface Round {
  /** Schedules that were due and moved on (a conflicting insert moves one without making). */
  readonly served: number;
  readonly generated: readonly Generated[];
}

/** One round: up to `ROUND_SIZE` occurrences, each of another schedule. */
export async function generateRound(db: Database, now: Date): Promise<Round> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({ schedule: requestSchedules, original: requests })
      .from(requestSchedules)
      .innerJoin(requests, eq(requests.id, requestSchedules.requestRowId))
      .where(and(eq(requestSchedules.stopped, false), lte(requestSchedules.nextAt, now)))
      .orderBy(asc(requestSchedules.nextAt))
      .limit(ROUND_SIZE)
      .for('update', { of: requestSchedules, skipLocked: true });
    const generated: Generated[] = [];
    for (const { schedule, original } of due) {
      const n = schedule.nextOccurrence;
      const [created] = await tx
        .insert(requests)
        .values(occurrenceOf(original, n))
        .onConflictDoNothing({
          target: [requests.originalRequestId, requests.occurrence],
          where: sql`${requests.originalRequestId} is not null`,
        })
        .returning();
      if (created) {
        await enqueueRecurringEvent(tx, now, original, created);
        generated.push({
          originalRequestId: original.requestId,
          requestId: created.requestId,
          occurrence: n,
        });
      }
      await tx
        .update(requestSchedules)
        .set({
          nextOccurrence: n + 1,
          nextAt: occurrenceDate(schedule.startDate, schedule.frequency, n + 1),
          updatedAt: now,
        })
        .where(eq(requestSchedules.requestRowId, schedule.requestRowId));
    }
    return { served: due.length, generated };
  });
}

/**
 * Occurrence `n` of `original`: the same payee, payer, amount, currencies, customer info,
 * reference and creator (account, client ID, origin), a fresh id, salt and payment reference.
 */
function occurrenceOf(original: RequestRow, n: number) {
  const requestId = mintRequestId();
  const salt = mintSalt();
  const reference = paymentReference(requestId, salt, original.payee);
  return {
    requestId,
    accountId: original.accountId,
    clientIdId: original.clientIdId,
    network: original.network,
    invoiceCurrency: original.invoiceCurrency,
    paymentCurrency: original.paymentCurrency,
    expectedAmount: original.expectedAmount,
    payee: original.payee,
    payer: original.payer,
    destinationId: original.destinationId,
    reference: original.reference,
    customerInfo: original.customerInfo,
    origin: original.origin,
    salt,
    paymentReference: reference,
    referenceTopic: referenceTopic(reference),
    originalRequestId: original.requestId,
    originalRequestPaymentReference: original.paymentReference,
    occurrence: n,
  } satisfies typeof requests.$inferInsert;
}

export function createOccurrenceGenerator(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** Called after a tick that wrote deliveries (wakes the dispatcher). */
  onGenerated?: () => void;
}): OccurrenceGenerator {
  const tick = async (): Promise<Tick> => {
    const made: Generated[] = [];
    let more = true;
    for (let round = 0; round < MAX_ROUNDS_PER_TICK; round++) {
      const { served, generated } = await generateRound(deps.db, deps.clock.now());
      made.push(...generated);
      for (const occurrence of generated)
        deps.logger.info(occurrence, 'recurring request occurrence created');
      if (served === 0) {
        more = false;
        break;
      }
    }
    if (made.length > 0) deps.onGenerated?.();
    return { generated: made, more };
  };

  const poller = createPoller({
    logger: deps.logger,
    pollMs: POLL_MS,
    round: async () => (await tick()).more,
    failure: { level: 'error', message: 'recurring request round failed; retrying later' },
  });

  return {
    tick,
    start: () => poller.start(),
    stop: () => poller.stop(),
  };
}
