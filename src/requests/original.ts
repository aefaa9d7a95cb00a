import { and, eq, inArray, or, type SQL } from 'drizzle-orm';
import { AppError, ValidationError } from '../base/errors.ts';
import { PAYMENT_NETWORK_IDS, SANDBOX_NETWORKS } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import { requestSchedules, requests } from '../db/schema.ts';
import { referenceTopic } from '../payments/references.ts';

/**
 * `originalRequestId` / `originalRequestPaymentReference` on `POST /v2/request`: a client making
 * an occurrence of a recurring request itself. Either field, or both, must name the original of
 * a recurring request of the caller's account (the one `recurrence` created, not one of its
 * occurrences); the new request then carries both, like the occurrences the schedule generates,
 * and its series answers `PATCH`. Another account's request is as unknown as a missing one.
 */

const ORIGINAL_NOT_FOUND_MESSAGE = 'Original request not found';

export interface OriginalRef {
  readonly originalRequestId: string;
  /** 16 hex digits, no 0x, as stored. */
  readonly originalRequestPaymentReference: string;
}

const REFERENCE = /^(?:0x)?([0-9a-fA-F]{16})$/;
const NETWORKS = [...PAYMENT_NETWORK_IDS, ...SANDBOX_NETWORKS.map((network) => network.id)];

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
  const found = await originalCandidates(db, accountId, { id, reference });
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

/**
 * The account's requests named by id or payment reference (16 hex digits, lower case), with
 * whether each recurs; exported for the EXPLAIN test (each name is found through an index).
 */
export function originalCandidates(
  db: Database,
  accountId: string,
  name: { readonly id?: string | undefined; readonly reference?: string | undefined },
) {
  const names: SQL[] = [];
  if (name.id !== undefined) names.push(eq(requests.requestId, name.id.toLowerCase()));
  if (name.reference !== undefined) {
    // Through the (network, reference topic) index, whatever the network.
    names.push(
      and(
        inArray(requests.network, NETWORKS),
        eq(requests.referenceTopic, referenceTopic(name.reference)),
        eq(requests.paymentReference, name.reference),
      ) as SQL,
    );
  }
  return db
    .select({
      requestId: requests.requestId,
      paymentReference: requests.paymentReference,
      schedule: requestSchedules.requestRowId,
    })
    .from(requests)
    .leftJoin(requestSchedules, eq(requestSchedules.requestRowId, requests.id))
    .where(and(eq(requests.accountId, accountId), or(...names)));
}
