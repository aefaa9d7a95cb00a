import type { Hex } from 'viem';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import {
  activateDestination,
  type DestinationRow,
  deactivateDestination,
  findDestination,
} from './destinations.ts';
import { consumeSignedNonce, issueNonce } from './nonces.ts';
import { type DestinationAction, destinationTypedDataJson } from './signing.ts';
import { parseTarget, resolveTarget } from './target.ts';

/**
 * Changes on /v2, where a wallet endorses each one by signing EIP-712 typed data that carries
 * a single-use nonce.
 */

export interface SignedDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly chains: ChainRegistry;
}

export interface SignedInput {
  readonly nonce: string;
  /** 0x and 130 hex digits (the route's schema says so). */
  readonly signature: string;
}

/** A fresh nonce for `action` on the destination named, and the typed data to sign with it. */
export async function signingData(
  deps: SignedDeps,
  accountId: string,
  query: {
    walletAddress: string;
    action: DestinationAction;
    tokenAddress: string;
    chainId: number;
  },
) {
  const target = resolveTarget(deps.chains, query);
  const message = await issueNonce(deps.db, deps.clock, accountId, query.action, target);
  return {
    nonce: message.nonce,
    expiresAt: new Date(message.expiresAt * 1000).toISOString(),
    typedData: destinationTypedDataJson(message),
  };
}

/** Adds (or reactivates) the destination the signed message names. */
export async function addSignedDestination(
  deps: SignedDeps,
  accountId: string,
  signed: SignedInput,
): Promise<DestinationRow> {
  const message = await consumeSignedNonce(deps.db, deps.clock, accountId, {
    nonce: signed.nonce,
    signature: signed.signature as Hex,
    expectedAction: 'add',
  });
  const target = resolveTarget(deps.chains, message);
  return activateDestination(deps.db, deps.clock, accountId, target);
}

/** Deactivates `destinationId` when the signed message names that very destination. */
export async function deactivateSignedDestination(
  deps: SignedDeps,
  accountId: string,
  destinationId: string,
  signed: SignedInput,
): Promise<DestinationRow> {
  const target = parseTarget(deps.chains, destinationId);
  const row = await findDestination(deps.db, accountId, destinationId);
  if (!row) throw new AppError('unknown_destination', 'Payee destination not found');
  const message = await consumeSignedNonce(deps.db, deps.clock, accountId, {
    nonce: signed.nonce,
    signature: signed.signature as Hex,
    expectedAction: 'deactivate',
  });
  if (
    message.walletAddress !== target.id.walletAddress ||
    message.tokenAddress !== target.id.tokenAddress ||
    message.chainId !== target.id.chainId
  ) {
    throw new AppError('signature_mismatch', 'The signed message names another destination');
  }
  return deactivateDestination(deps.db, deps.clock, row);
}
