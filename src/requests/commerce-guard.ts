import { inArray } from 'drizzle-orm';
import { AppError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { commercePayments } from '../db/schema.ts';
import { ownRequest } from './read.ts';
import type { RequestRow } from './requests.ts';

/**
 * A commerce payment's request is paid only through the escrow (the buyer authorizes from the
 * payment's payUrl, the operator captures): detection counts only the legs a capture vouches
 * for, so ERC20FeeProxy calldata for it (`/pay`, `/routes`, a batch payout of existing
 * requests) would move the buyer's money with no record. `commerce_request_not_directly_payable`
 * for the first of `rows` that belongs to a commerce payment.
 */
export async function refuseCommerceRequests(
  db: Database,
  rows: readonly Pick<RequestRow, 'requestId'>[],
): Promise<void> {
  if (rows.length === 0) return;
  const [held] = await db
    .select({ requestId: commercePayments.requestId })
    .from(commercePayments)
    .where(
      inArray(
        commercePayments.requestId,
        rows.map((row) => row.requestId),
      ),
    )
    .limit(1);
  if (held)
    throw new AppError(
      'commerce_request_not_directly_payable',
      `Request ${held.requestId} is a commerce payment's: the buyer pays it by authorizing it from the payment's payUrl (POST /v2/commerce-payments/${held.requestId}/authorize), not with /pay, /routes or a payout`,
    );
}

/** The account's request `requestId`, when it may be paid directly (`refuseCommerceRequests`). */
export async function payableRequest(
  db: Database,
  accountId: string,
  requestId: string,
): Promise<RequestRow> {
  const row = await ownRequest(db, accountId, requestId);
  await refuseCommerceRequests(db, [row]);
  return row;
}

/** The OpenAPI answer of `commerce_request_not_directly_payable`, for the routes that refuse. */
export const COMMERCE_REQUEST_REFUSED = {
  description:
    'commerce_request_not_directly_payable: a commerce payment’s request, paid only by authorizing it (its payUrl)',
  $ref: 'ErrorEnvelope',
};
