import { and, eq, or, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { requestSchedules, requests } from '../db/schema.ts';
import { AppError, ValidationError } from '../errors.ts';

/**
 * `originalRequestId` / `originalRequestPaymentReference` on `POST /v2/request`: a client making
 * an occurrence of a recurring request itself. Either field, or both, must name the original of
 * a recurring request of the caller's account (the one `recurrence` created, not one of its
 * occurrences); the new request then carries both, like the occurrences the schedule generates,
 * and its series answers `PATCH`. Another account's request is as unknown as a missing one.
 */

export const ORIGINAL_NOT_FOUND_MESSAGE = 'Original request not found';

export interface OriginalRef {
  readonly originalRequestId: string;
  /** 16 hex digits, no 0x, as stored. */
  readonly originalRequestPaymentReference: string;
}

const REFERENCE = /^(?:0x)?([0-9a-fA-F]{16})$/;

export async function resolveOriginal(
  db: Database,
  accountId: string,
  body: {
    readonly originalRequestId?: string | undefined;
    readonly originalRequestPaymentReference?: string | undefined;
  },
): Promise<OriginalRef | null> {
  const { originalRequestId: id, originalRequestPaymentReference: ref } = body;
  if (id === undefined && ref === undefined) return null;
  let reference: string | undefined;
  if (ref !== undefined) {
    const match = REFERENCE.exec(ref);
    if (!match?.[1])
      throw new ValidationError([
        {
          field: 'originalRequestPaymentReference',
          message: 'must be a payment reference: 0x and 16 hex digits',
        },
      ]);
    reference = match[1].toLowerCase();
  }
  const names: SQL[] = [];
  if (id !== undefined) names.push(eq(requests.requestId, id.toLowerCase()));
  if (reference !== undefined) names.push(eq(requests.paymentReference, reference));
  const found = await db
    .select({
      requestId: requests.requestId,
      paymentReference: requests.paymentReference,
      schedule: requestSchedules.requestRowId,
    })
    .from(requests)
    .leftJoin(requestSchedules, eq(requestSchedules.requestRowId, requests.id))
    .where(and(eq(requests.accountId, accountId), or(...names)));
  // By id: at most one row. By reference: one per network at most; the recurring one counts.
  const named =
    id !== undefined
      ? found.find((row) => row.requestId === id.toLowerCase())
      : (found.find((row) => row.schedule !== null) ?? found[0]);
  if (!named) throw new AppError('original_request_not_found', ORIGINAL_NOT_FOUND_MESSAGE);
  if (reference !== undefined && named.paymentReference !== reference)
    throw new ValidationError([
      {
        field: 'originalRequestPaymentReference',
        message: 'is not the payment reference of originalRequestId',
      },
    ]);
  if (named.schedule === null)
    throw new AppError(
      'request_not_recurring',
      `Request ${named.requestId} is not the original of a recurring request`,
    );
  return {
    originalRequestId: named.requestId,
    originalRequestPaymentReference: named.paymentReference,
  };
}
