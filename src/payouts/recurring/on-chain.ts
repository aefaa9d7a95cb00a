import {
  type Address,
  BaseError,
  decodeErrorResult,
  type Hex,
  hashTypedData,
  isHex,
  type PublicClient,
} from 'viem';
import { erc20Abi } from '../../payments/abis.ts';
import type { EvmTransaction } from '../../payments/transactions.ts';
import { recurringPaymentProxyAbi } from './abi.ts';
import type { Claim } from './executions.ts';

/**
 * What the recurring payout executor asks of the chain: whether an index is paid (the
 * contract's own bitmap), what a trigger would do (an `eth_call` from the relayer) and what the
 * payer has for it; signing, sending and following the trigger is payments/sender.ts. Every
 * function here either answers or throws an RPC error; none of them writes to the database.
 */

/**
 * A decoded revert: a custom error of the proxy by its name, `Error` (a revert string, in
 * `message`), `Panic` (its code in `message`), or `EmptyRevert` (no data).
 */
export interface Revert {
  readonly errorName: string;
  readonly message: string;
}

/** The permit's EIP-712 digest: the contract keys a schedule's bitmap by it. */
export function scheduleDigest(claim: Pick<Claim, 'permit'>): Hex {
  return hashTypedData(claim.permit);
}

/** The contract's record: is `index` of this schedule paid already? */
export async function isIndexPaid(
  client: PublicClient,
  proxy: Address,
  digest: Hex,
  index: number,
): Promise<boolean> {
  const bitmap = await client.readContract({
    address: proxy,
    abi: recurringPaymentProxyAbi,
    functionName: 'triggeredPaymentsBitmap',
    args: [digest],
  });
  return ((bitmap >> BigInt(index)) & 1n) === 1n;
}

/**
 * The trigger run as a call from the relayer on the latest block: null when it would succeed,
 * its revert decoded when it would not. RPC failures throw.
 */
export async function simulate(
  client: PublicClient,
  from: Address,
  tx: EvmTransaction,
): Promise<Revert | null> {
  try {
    await client.call({ account: from, to: tx.to, data: tx.data });
    return null;
  } catch (error) {
    const revert = revertOf(error);
    if (revert === undefined) throw error;
    return revert;
  }
}

/**
 * The revert in a failed call, decoded with the contract's errors (Error(string) and Panic
 * included); `EmptyRevert` for a revert without data (a token's bare `require`); undefined
 * when the error is not a revert at all (the RPC failed).
 */
function revertOf(error: unknown): Revert | undefined {
  if (!(error instanceof BaseError)) return undefined;
  let data: Hex | undefined;
  let reverted = false;
  // viem wraps the node's answer; nodes put the revert bytes on different layers.
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const raw = (e as { data?: unknown }).data;
    const bytes = typeof raw === 'object' && raw !== null ? (raw as { data?: unknown }).data : raw;
    if (data === undefined && typeof bytes === 'string' && isHex(bytes) && bytes !== '0x') {
      data = bytes;
    }
    if (/revert/i.test(e.message)) reverted = true;
  }
  if (data !== undefined) return decodeRevert(data);
  return reverted ? { errorName: 'EmptyRevert', message: 'no reason given' } : undefined;
}

function decodeRevert(data: Hex): Revert {
  try {
    const decoded = decodeErrorResult({ abi: recurringPaymentProxyAbi, data });
    const [first] = (decoded.args ?? []) as readonly unknown[];
    switch (decoded.errorName as string) {
      case 'Error':
        return { errorName: 'Error', message: String(first) };
      case 'Panic':
        return { errorName: 'Panic', message: `panic 0x${(first as bigint).toString(16)}` };
      default:
        return { errorName: decoded.errorName, message: decoded.errorName };
    }
  } catch {
    return { errorName: 'Unknown', message: `unrecognised revert data ${data.slice(0, 10)}` };
  }
}

/** What the payer has for the proxy: its allowance and its balance of the token. */
export async function payerFunds(
  client: PublicClient,
  claim: Pick<Claim, 'schedule'>,
): Promise<{ allowance: bigint; balance: bigint }> {
  const { tokenAddress, payer, proxy } = claim.schedule;
  const [allowance, balance] = await Promise.all([
    client.readContract({
      address: tokenAddress as Address,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [payer as Address, proxy as Address],
    }),
    client.readContract({
      address: tokenAddress as Address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [payer as Address],
    }),
  ]);
  return { allowance, balance };
}
