import { and, count, desc, eq } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import { ulid } from '../base/ulid.ts';
import type { Database } from '../db/client.ts';
import { journeySteps, journeys } from '../db/schema.ts';
import { ownRequest } from '../requests/read.ts';
import type { RequestRow } from '../requests/requests.ts';
import { requestByReference } from '../v1/lookup.ts';

/** Journeys and the steps processors post to them: writing, and finding them for an account. */

/** Journeys one request may have; past it `POST /v2/journey` answers 409. */
export const MAX_JOURNEYS_PER_REQUEST = 20;
/** Processor steps one journey may hold; past it a step answers 409. */
const MAX_STEPS_PER_JOURNEY = 200;

export type JourneyRow = typeof journeys.$inferSelect;
export type JourneyStepRow = typeof journeySteps.$inferSelect;

const JOURNEY_ID = /^jrn_[0-9A-HJKMNP-TV-Z]{26}$/;
const REQUEST_ID = /^01[0-9a-fA-F]{64}$/;

export interface JourneyDeps {
  readonly db: Database;
  readonly clock: Clock;
}

function journeyNotFound(): AppError {
  return new AppError('journey_not_found', 'Journey not found');
}

/** A new journey for the account's request `requestId`; `request_not_found` otherwise. */
export async function createJourney(
  deps: JourneyDeps,
  accountId: string,
  requestId: string,
): Promise<JourneyRow> {
  const request = await ownRequest(deps.db, accountId, requestId);
  // A soft cap: two creations racing past it leave at most one journey each over it.
  const [existing] = await deps.db
    .select({ n: count() })
    .from(journeys)
    .where(eq(journeys.requestRowId, request.id));
  if ((existing?.n ?? 0) >= MAX_JOURNEYS_PER_REQUEST) {
    throw new AppError(
      'journey_limit_reached',
      `A request has at most ${MAX_JOURNEYS_PER_REQUEST} journeys`,
    );
  }
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(journeys)
    .values({
      id: `jrn_${ulid(now.getTime())}`,
      accountId,
      requestRowId: request.id,
      // createdAt: the database's clock (microseconds), as the request's and its payments':
      // it orders a request's journeys, and sits in time order among payreq's hops.
    })
    .returning();
  if (!row) throw new Error('journey insert returned nothing');
  return row;
}

/** The account's journey `journeyId`; `journey_not_found` otherwise (another account's too). */
export async function ownJourney(
  db: Database,
  accountId: string,
  journeyId: string,
): Promise<JourneyRow> {
  if (!JOURNEY_ID.test(journeyId)) throw journeyNotFound();
  const [row] = await db
    .select()
    .from(journeys)
    .where(and(eq(journeys.id, journeyId), eq(journeys.accountId, accountId)));
  if (!row) throw journeyNotFound();
  return row;
}

/**
 * The journey a processor's step names by `queryId`: a journey id (`jrn_…`), or one of the
 * account's requests by its id or payment reference (`0x` and 16 hex digits), whose newest
 * journey it means (a processor often knows the payment, not the journey). A request with no
 * journey, or that is not the account's, is `journey_not_found`: a step never creates one.
 */
export async function journeyOfQuery(
  db: Database,
  accountId: string,
  queryId: string,
): Promise<JourneyRow> {
  if (queryId.startsWith('jrn_')) return ownJourney(db, accountId, queryId);
  const request = await requestOfQuery(db, accountId, queryId);
  if (request === null) throw journeyNotFound();
  const [row] = await db
    .select()
    .from(journeys)
    .where(eq(journeys.requestRowId, request.id))
    .orderBy(desc(journeys.createdAt), desc(journeys.id))
    .limit(1);
  if (!row) throw journeyNotFound();
  return row;
}

async function requestOfQuery(
  db: Database,
  accountId: string,
  queryId: string,
): Promise<RequestRow | null> {
  try {
    return REQUEST_ID.test(queryId)
      ? await ownRequest(db, accountId, queryId)
      : await requestByReference(db, accountId, queryId);
  } catch (error) {
    if (error instanceof AppError && error.code === 'request_not_found') return null;
    throw error;
  }
}

export interface StepInput {
  readonly status: string;
  readonly amount: string;
  readonly processedAt: Date;
  readonly currency?: string | undefined;
  readonly txReference?: string | undefined;
  readonly rawPayload?: unknown;
  readonly nextProcessorId?: string | undefined;
}

/**
 * Appends a processor's step to `journey`. The journey's row is locked while the step takes the
 * next index, so steps posted at once are numbered one after the other, never twice the same.
 */
export async function appendStep(
  deps: JourneyDeps,
  journey: JourneyRow,
  processorId: string,
  input: StepInput,
): Promise<JourneyStepRow> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await tx
      .select({ id: journeys.id })
      .from(journeys)
      .where(eq(journeys.id, journey.id))
      .for('update');
    const [taken] = await tx
      .select({ n: count() })
      .from(journeySteps)
      .where(eq(journeySteps.journeyId, journey.id));
    const stepIndex = taken?.n ?? 0;
    if (stepIndex >= MAX_STEPS_PER_JOURNEY) {
      throw new AppError(
        'journey_limit_reached',
        `A journey holds at most ${MAX_STEPS_PER_JOURNEY} steps`,
      );
    }
    const [row] = await tx
      .insert(journeySteps)
      .values({
        id: `jst_${ulid(now.getTime())}`,
        journeyId: journey.id,
        stepIndex,
        processorId,
        status: input.status,
        amount: input.amount,
        currency: input.currency ?? null,
        txReference: input.txReference ?? null,
        processedAt: input.processedAt,
        rawPayload: input.rawPayload ?? null,
        nextProcessorId: input.nextProcessorId ?? null,
      })
      .returning();
    if (!row) throw new Error('journey step insert returned nothing');
    return row;
  });
}

/** A journey's processor steps, in the order they were posted. */
export function stepsOf(db: Database, journeyId: string): Promise<JourneyStepRow[]> {
  return db
    .select()
    .from(journeySteps)
    .where(eq(journeySteps.journeyId, journeyId))
    .orderBy(journeySteps.stepIndex);
}
