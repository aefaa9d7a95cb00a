import { parseDestinationId } from './destination-id.ts';
import type { DestinationRow } from './destinations.ts';

/** The wire forms of a destination: /v2's, /v1's, and a payout lookup's. */

/**
 * Every stored destination is claimed: it exists only because its wallet asked for it, by a
 * SIWE session on /v1 or an EIP-712 signature on /v2. There is no unclaimed (payer-named) kind.
 */
const CLAIMED = true;

export function destinationBody(row: DestinationRow) {
  const parsed = parseDestinationId(row.destinationId);
  return {
    id: row.id,
    destinationId: row.destinationId,
    walletAddress: row.walletAddress,
    tokenAddress: row.tokenAddress,
    chainId: row.chainId,
    network: row.network,
    active: row.active,
    binaryInteropAddress: parsed?.binaryInteropAddress ?? '',
    humanReadableInteropAddress: parsed?.humanReadableInteropAddress ?? '',
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * What kind of wallet 0.14.0 says a destination pays: always `eoa` so far, since nothing
 * records whether the wallet that signed in is a contract (an ERC-1271 Safe signs in too).
 */
const WALLET_TYPE = 'eoa' as const;

export function destinationV1Body(row: DestinationRow) {
  const { network: _network, ...shared } = destinationBody(row);
  return { ...shared, walletType: WALLET_TYPE, accessPolicy: row.accessPolicy, claimed: CLAIMED };
}

export function payoutDestinationBody(row: DestinationRow) {
  return {
    destinationId: row.destinationId,
    walletAddress: row.walletAddress,
    tokenAddress: row.tokenAddress,
    chainId: row.chainId,
    claimed: CLAIMED,
  };
}
