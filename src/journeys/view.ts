import { eq } from 'drizzle-orm';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { requests } from '../db/schema.ts';
import { HOP_RANK, type HopSource, type PayreqHop, payreqHops } from './hops.ts';
import { type JourneyRow, type JourneyStepRow, stepsOf } from './journeys.ts';

/** What `GET /v2/journey/{journeyId}` and a posted step answer. */

export interface JourneyViewDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly hopSources: readonly HopSource[];
}

/** A processor's step as the reference's example shows it, with what we add. */
export function stepBody(step: JourneyStepRow) {
  return {
    id: step.id,
    journeyId: step.journeyId,
    processorId: step.processorId,
    status: step.status,
    amount: step.amount,
    currency: step.currency,
    txReference: step.txReference,
    processedAt: step.processedAt.toISOString(),
    rawPayload: step.rawPayload ?? null,
    nextProcessorId: step.nextProcessorId,
  };
}

type Entry =
  | {
      readonly at: Date;
      readonly rank: number;
      readonly order: number;
      readonly step: JourneyStepRow;
    }
  | { readonly at: Date; readonly rank: number; readonly order: number; readonly hop: PayreqHop };

/** After every payreq hop at the same instant. */
const PROCESSOR_RANK = Math.max(...Object.values(HOP_RANK)) + 1;

/**
 * The journey with every step in time order: the processors' steps (`source: processor`) and
 * payreq's own hops (`source: payreq`) together. At the same instant, the path's own order
 * (HOP_RANK), then the order each was posted or read. `stepIndex` is a step's place in this
 * order, counting from 0.
 */
export async function journeyBody(deps: JourneyViewDeps, journey: JourneyRow) {
  const [request] = await deps.db
    .select()
    .from(requests)
    .where(eq(requests.id, journey.requestRowId));
  if (!request) throw new Error(`journey ${journey.id} has no request`);
  const [steps, hops] = await Promise.all([
    stepsOf(deps.db, journey.id),
    payreqHops({ db: deps.db, chains: deps.chains, request }, deps.hopSources),
  ]);
  const entries: Entry[] = [
    ...hops.map((hop, order) => ({ at: hop.at, rank: HOP_RANK[hop.type], order, hop })),
    ...steps.map((step) => ({
      at: step.processedAt,
      rank: PROCESSOR_RANK,
      order: step.stepIndex,
      step,
    })),
  ];
  entries.sort((x, y) => x.at.getTime() - y.at.getTime() || x.rank - y.rank || x.order - y.order);
  return {
    id: journey.id,
    requestId: request.requestId,
    createdAt: journey.createdAt.toISOString(),
    events: entries.map((entry, stepIndex) => {
      if ('step' in entry) {
        const { journeyId: _journey, ...step } = stepBody(entry.step);
        return { ...step, stepIndex, source: 'processor' as const };
      }
      const { hop } = entry;
      return {
        id: hop.id,
        stepIndex,
        source: 'payreq' as const,
        type: hop.type,
        status: hop.status,
        amount: hop.amount,
        currency: hop.currency,
        processedAt: hop.at.toISOString(),
        txReference: hop.txReference,
        rawPayload: hop.rawPayload,
      };
    }),
  };
}
