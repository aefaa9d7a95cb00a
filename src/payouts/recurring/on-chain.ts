import {
  type Address,
  BaseError,
  decodeErrorResult,
  type Hex,
  hashTypedData,
  isHex,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type TransactionSerializable,
} from 'viem';
import { prepareTransactionRequest, sendRawTransaction } from 'viem/actions';
import { erc20Abi } from '../../payments/abis.ts';
import type { EvmTransaction } from '../../payments/transactions.ts';
import { recurringPaymentProxyAbi } from './abi.ts';
import type { Claim } from './executions.ts';

/**
 * What the recurring payout executor asks of the chain: whether an index is paid (the
 * contract's own bitmap), what a trigger would do (an `eth_call` from the relayer), where a
 * recorded transaction stands, and the signed trigger itself. Every function here either
 * answers or throws an RPC error; none of them writes to the database.
 */

/** Head-room over the gas estimate: a trigger's cost barely varies, a revert for gas costs a pause. */
const GAS_HEADROOM_PERCENT = 120n;

/**
 * A decoded revert: a custom error of the proxy by its name, `Error` (a revert string, in
 * `message`), `Panic` (its code in `message`), or `EmptyRevert` (no data).
 */
export interface Revert {
  readonly errorName: string;
  readonly message: string;
}

/** Where a recorded transaction stands on the chain the executor reads. */
export type TransactionStatus = 'success' | 'reverted' | 'pending' | 'unknown';

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

/** Where `hash` stands: mined (and how), known to the node but not mined, or unknown. */
export async function transactionStatus(
  client: PublicClient,
  hash: Hex,
): Promise<TransactionStatus> {
  try {
    const receipt = await client.getTransactionReceipt({ hash });
    return receipt.status === 'success' ? 'success' : 'reverted';
  } catch (error) {
    if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
  }
  try {
    await client.getTransaction({ hash });
    return 'pending';
  } catch (error) {
    if (error instanceof TransactionNotFoundError) return 'unknown';
    throw error;
  }
}

/** Polls for `hash`'s receipt until it is mined or `timeoutMs` passes (then 'pending'). */
export async function waitForOutcome(
  client: PublicClient,
  hash: Hex,
  options: { readonly timeoutMs: number; readonly pollMs: number },
): Promise<TransactionStatus> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const status = await transactionStatus(client, hash);
    if (status === 'success' || status === 'reverted') return status;
    if (Date.now() >= deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}

export interface SignedTrigger {
  readonly hash: Hex;
  readonly serialized: Hex;
  /** The most the transaction can cost the relayer, in wei. */
  readonly maxCost: bigint;
}

/**
 * The trigger signed by the relayer, ready to broadcast: its nonce is the relayer's pending
 * count on the chain (one executor per network sends for the relayer, see executor.ts), its gas
 * the estimate plus head-room, its fees the chain's current suggestion.
 */
export async function signTrigger(
  client: PublicClient,
  relayer: PrivateKeyAccount,
  tx: EvmTransaction,
): Promise<SignedTrigger> {
  const gas = await client.estimateGas({ account: relayer, to: tx.to, data: tx.data });
  const prepared = await prepareTransactionRequest(client, {
    account: relayer,
    chain: client.chain,
    to: tx.to,
    data: tx.data,
    value: 0n,
    gas: (gas * GAS_HEADROOM_PERCENT) / 100n,
  });
  // viem types what it prepared with an unsigned authorization list, which signing refuses;
  // a trigger sets none, so what was prepared is what is signed.
  const serialized = await relayer.signTransaction(prepared as TransactionSerializable);
  const price = prepared.maxFeePerGas ?? prepared.gasPrice ?? 0n;
  return { hash: keccak256(serialized), serialized, maxCost: (prepared.gas ?? gas) * price };
}

/** Broadcasts a signed transaction as it is. */
export async function broadcast(client: PublicClient, serialized: Hex): Promise<void> {
  await sendRawTransaction(client, { serializedTransaction: serialized });
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
