import type { Database } from '../db/client.ts';
import { enqueue, targetWebhooks } from '../webhooks/outbox.ts';

/**
 * `request.recurring` (api-facts §1.2, §1.6): the schedule of a recurring request made its next
 * occurrence. Receivers written for the reference find the original by `originalRequestId`
 * (older ones by `originalRequestPaymentReference`) and file the new request under `requestId`
 * and `paymentReference`. It goes to the endpoints that hear of the original's payments.
 */

interface RecurringEventPayload {
  readonly event: 'request.recurring';
  /** The new occurrence. */
  readonly requestId: string;
  /** The reference API repeats the id under this spelling too. */
  readonly requestID: string;
  readonly paymentReference: string;
  readonly originalRequestId: string;
  readonly originalRequestPaymentReference: string;
  /** When payreq made the occurrence, by its clock (after downtime, later than its date). */
  readonly timestamp: string;
}

/** A request as stored: references are 16 hex digits without 0x. */
interface StoredRequest {
  readonly requestId: string;
  readonly paymentReference: string;
  readonly accountId: string;
  readonly clientIdId: string | null;
}

function recurringEventPayload(
  original: StoredRequest,
  occurrence: StoredRequest,
  createdAt: Date,
): RecurringEventPayload {
  return {
    event: 'request.recurring',
    requestId: occurrence.requestId,
    requestID: occurrence.requestId,
    paymentReference: `0x${occurrence.paymentReference}`,
    originalRequestId: original.requestId,
    originalRequestPaymentReference: `0x${original.paymentReference}`,
    timestamp: createdAt.toISOString(),
  };
}

/** One delivery per endpoint that hears of the original; in the caller's transaction. */
export async function enqueueRecurringEvent(
  db: Database,
  now: Date,
  original: StoredRequest,
  occurrence: StoredRequest,
): Promise<string[]> {
  const { event, ...payload } = recurringEventPayload(original, occurrence, now);
  const hooks = await targetWebhooks(db, {
    accountId: original.accountId,
    clientIdId: original.clientIdId,
  });
  return enqueue(db, now, hooks, [{ event, payload }]);
}
