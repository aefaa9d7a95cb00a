import type { Address, PublicClient } from 'viem';
import { safeAbi } from './abi.ts';

/** What a payer Safe's transaction is built from: its next nonce, and who must sign. */
export interface SafeState {
  readonly version: string;
  readonly nonce: bigint;
  readonly threshold: number;
  readonly owners: readonly Address[];
}

/**
 * Reads a Safe in one `eth_call` (Multicall3, each call allowed to fail): null when the address
 * does not answer as a Safe, or as one older than 1.3.0, whose `SafeTx` domain had no chain id
 * and whose hash we would then get wrong.
 */
export async function readSafe(
  client: PublicClient,
  multicall3: Address,
  safe: Address,
): Promise<SafeState | null> {
  const call = <F extends 'VERSION' | 'nonce' | 'getThreshold' | 'getOwners'>(functionName: F) =>
    ({ address: safe, abi: safeAbi, functionName }) as const;
  const [version, nonce, threshold, owners] = await client.multicall({
    contracts: [call('VERSION'), call('nonce'), call('getThreshold'), call('getOwners')],
    allowFailure: true,
    multicallAddress: multicall3,
  });
  if (
    version.status !== 'success' ||
    nonce.status !== 'success' ||
    threshold.status !== 'success' ||
    owners.status !== 'success' ||
    !signsWithChainId(version.result) ||
    threshold.result === 0n ||
    owners.result.length === 0
  ) {
    return null;
  }
  return {
    version: version.result,
    nonce: nonce.result,
    threshold: Number(threshold.result),
    owners: owners.result,
  };
}

/** "1.3.0", "1.4.1", "1.5.0" (an L2 build answers the same): 1.3.0 or later. */
function signsWithChainId(version: string): boolean {
  const match = /^(\d+)\.(\d+)\./.exec(version);
  if (!match) return false;
  const major = Number(match[1]);
  return major > 1 || (major === 1 && Number(match[2]) >= 3);
}
