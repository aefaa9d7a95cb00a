import { AppError, ValidationError } from '../base/errors.ts';
import { ADDRESS_MESSAGES, detectWallet } from '../chains/address.ts';
import type { Database } from '../db/client.ts';
import { parseDestinationId } from './destination-id.ts';
import {
  type DestinationRow,
  findCanonicalDestination,
  payoutDestinationOf,
} from './destinations.ts';
import { INVALID_DESTINATION_ID } from './target.ts';

const DESTINATION_NOT_FOUND = 'Payee destination not found';

/**
 * A destination of the account by id, for /v2's read and /v1's lookup alike. Only the format is
 * checked, not whether the chain and token are still served: a destination on a network since
 * dropped can still be found (and deactivated, on /v1). /v2 checks that first, by parseTarget.
 */
export async function ownDestination(
  db: Database,
  accountId: string,
  destinationId: string,
): Promise<DestinationRow> {
  const parsed = parseDestinationId(destinationId);
  if (parsed === null) throw new AppError('invalid_destination_id', INVALID_DESTINATION_ID);
  const row = await findCanonicalDestination(db, accountId, parsed.value);
  if (!row) throw new AppError('destination_not_found', DESTINATION_NOT_FOUND);
  return row;
}

/** Where a recipient wallet wants to be paid, whoever asks (see payoutDestinationOf). */
export async function payoutLookup(
  db: Database,
  walletAddress: string,
): Promise<DestinationRow | null> {
  const wallet = detectWallet(walletAddress);
  if (!wallet) {
    throw new ValidationError([{ field: 'walletAddress', message: ADDRESS_MESSAGES.any }]);
  }
  return payoutDestinationOf(db, wallet.address);
}
