import { and, eq, inArray } from 'drizzle-orm';
import type { NetworkId } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import { commercePayments } from '../db/schema.ts';

/**
 * The requests, among these, of commerce payments (contracts.md §5.1). Their payments are the
 * merchant's legs of captures: the wrapper takes the capture's fee out of what it captured
 * rather than on top, so such a payment counts for its amount and its fee (the capture), and
 * capturing all that was authorized pays the request.
 */
export async function commerceRequestIds(
  db: Database,
  network: NetworkId,
  requestIds: readonly string[],
): Promise<Set<string>> {
  if (requestIds.length === 0) return new Set();
  const rows = await db
    .select({ requestId: commercePayments.requestId })
    .from(commercePayments)
    .where(
      and(
        eq(commercePayments.network, network),
        inArray(commercePayments.requestId, [...new Set(requestIds)]),
      ),
    );
  return new Set(rows.map((row) => row.requestId));
}
