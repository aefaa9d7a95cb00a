import { and, eq, inArray } from 'drizzle-orm';
import { AppError } from '../base/errors.ts';
import { PAYMENT_NETWORK_IDS, SANDBOX_NETWORKS } from '../chains/networks.ts';
import type { Database } from '../db/client.ts';
import { requests } from '../db/schema.ts';
import { referenceTopic } from '../payments/references.ts';
import type { RequestRow } from '../requests/requests.ts';

/**
 * The v1 operations name a request by its payment reference (v2 by its id): `0x` and 16 hex
 * digits, as `POST /v1/request` and v2 answer it (the 0x may be left out, any case).
 */

const REFERENCE = /^(?:0x)?([0-9a-fA-F]{16})$/;
const NETWORKS = [...PAYMENT_NETWORK_IDS, ...SANDBOX_NETWORKS.map((network) => network.id)];

/**
 * The account's request whose payment reference is `reference`; `request_not_found` otherwise,
 * as v2 answers for an id: another account's reference is as unknown as a missing one, and so
 * is text that is no reference at all. A reference is unique per network; should an account
 * hold one on two networks, the newest request is the one named.
 */
export async function requestByReference(
  db: Database,
  accountId: string,
  reference: string,
): Promise<RequestRow> {
  const digits = REFERENCE.exec(reference)?.[1]?.toLowerCase();
  if (digits === undefined) throw notFound();
  const rows = await referenceLookup(db, accountId, digits);
  const newest = rows.reduce<RequestRow | undefined>(
    (found, row) => (found === undefined || row.createdAt > found.createdAt ? row : found),
    undefined,
  );
  if (newest === undefined) throw notFound();
  return newest;
}

/**
 * The account's requests with payment reference `digits` (16 hex digits, lower case): at most
 * one per network. Through the unique (network, reference topic) index, whatever the network;
 * no ORDER BY, which would tempt the planner to walk the account's requests by creation.
 * Exported for the EXPLAIN test.
 */
export function referenceLookup(db: Database, accountId: string, digits: string) {
  return db
    .select()
    .from(requests)
    .where(
      and(
        inArray(requests.network, NETWORKS),
        eq(requests.referenceTopic, referenceTopic(digits)),
        eq(requests.paymentReference, digits),
        eq(requests.accountId, accountId),
      ),
    );
}

function notFound(): AppError {
  return new AppError('request_not_found', 'Request not found');
}
