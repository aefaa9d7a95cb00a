import {
  type Address,
  BaseError,
  type Hex,
  isHex,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
  RpcError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type TransactionSerializable,
} from 'viem';
import { prepareTransactionRequest, sendRawTransaction } from 'viem/actions';
import type { EvmTransaction } from './transactions.ts';

/**
 * How the server sends a call with a key it holds (the recurring relayer, the commerce
 * operator): signed here with the chain's pending nonce, broadcast as it is, and followed by
 * its hash. Every function either answers or throws an RPC error; none writes to the database.
 */

/** Head-room over the gas estimate: a call's cost barely varies, a revert for gas costs a retry. */
const GAS_HEADROOM_PERCENT = 120n;

/** Where a sent transaction stands on the chain the server reads. */
export type TransactionStatus = 'success' | 'reverted' | 'pending' | 'unknown';

/** Where `hash` stands: mined (and how), known to the node but not mined, or unknown. */
export async function transactionStatus(
  client: PublicClient,
  hash: Hex,
): Promise<TransactionStatus> {
  try {
    const { status } = await client.getTransactionReceipt({ hash });
    if (status === 'success' || status === 'reverted') return status;
    // viem gives a wrong-shaped answer no status: the node failed, not the transaction.
    throw new Error(`the node's receipt for ${hash} holds no status`);
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

/** Polls for `hash`'s receipt until it is mined or `timeoutMs` passes (then its status). */
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

export interface SignedCall {
  readonly hash: Hex;
  readonly serialized: Hex;
  /** The sender's nonce it takes: once the chain's count passes it unmined, it never will be. */
  readonly nonce: number;
  /** The most the transaction can cost the sender, in wei. */
  readonly maxCost: bigint;
}

/**
 * The call signed by `sender`, ready to broadcast: its nonce is the sender's pending count on
 * the chain (so one sender sends at a time per key: see the callers), its gas the estimate plus
 * head-room, its fees the chain's current suggestion.
 */
export async function signCall(
  client: PublicClient,
  sender: PrivateKeyAccount,
  tx: EvmTransaction,
): Promise<SignedCall> {
  const gas = await client.estimateGas({ account: sender, to: tx.to, data: tx.data });
  const prepared = await prepareTransactionRequest(client, {
    account: sender,
    chain: client.chain,
    to: tx.to,
    data: tx.data,
    value: 0n,
    gas: (gas * GAS_HEADROOM_PERCENT) / 100n,
  });
  // viem types what it prepared with an unsigned authorization list, which signing refuses;
  // a call here sets none, so what was prepared is what is signed.
  const serialized = await sender.signTransaction(prepared as TransactionSerializable);
  const price = prepared.maxFeePerGas ?? prepared.gasPrice ?? 0n;
  return {
    hash: keccak256(serialized),
    serialized,
    nonce: prepared.nonce,
    maxCost: (prepared.gas ?? gas) * price,
  };
}

/** Broadcasts a signed transaction as it is. */
export async function broadcast(client: PublicClient, serialized: Hex): Promise<void> {
  await sendRawTransaction(client, { serializedTransaction: serialized });
}

/**
 * What a broadcast came to: the node took the transaction; the node refused it for good (it
 * can never be mined as it is); or nobody can say (a timeout, an HTTP failure or a 5xx after
 * the node may have taken it, `already known`): the transaction may still be mined.
 */
export type BroadcastOutcome =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'refused' | 'unclear'; readonly reason: string };

/** A node's answer that it holds the transaction already: in flight, not refused. */
const ALREADY_KNOWN = /already ?known|known transaction|already imported|already exists/i;
/** A node's answers that refuse a transaction for good (geth, Erigon, Nethermind, Reth, Hardhat). */
const REFUSED =
  /nonce too (low|high)|nonce has already been used|insufficient funds|intrinsic gas too low|gas limit|underpriced|fee cap|less than (the )?block base fee|invalid (sender|signature|chain ?id)|chain ?id mismatch|type not supported|oversized data/i;

/**
 * Broadcasts a signed transaction and says what came of it (`BroadcastOutcome`). Only an
 * answer of the node itself (a JSON-RPC error) that names a refusal counts as one, and only
 * while the node does not know the transaction's hash: a `nonce too low` may be this very
 * transaction, mined by an attempt that timed out.
 */
export async function broadcastOutcome(
  client: PublicClient,
  serialized: Hex,
): Promise<BroadcastOutcome> {
  try {
    await broadcast(client, serialized);
    return { kind: 'accepted' };
  } catch (error) {
    const said = error instanceof BaseError ? error.walk((e) => e instanceof RpcError) : null;
    const text = said instanceof RpcError ? `${said.shortMessage} ${said.details}` : '';
    // The node's own words when it answered (viem's message is its error code's).
    const reason = (said instanceof RpcError && said.details) || firstLine(error);
    if (!REFUSED.test(text) || ALREADY_KNOWN.test(text)) return { kind: 'unclear', reason };
    const known = await transactionStatus(client, keccak256(serialized)).catch(() => null);
    return known === 'unknown' ? { kind: 'refused', reason } : { kind: 'unclear', reason };
  }
}

/** An error's first line (viem's carry their details and version below it). */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message.split('\n')[0] : String(error)) || 'send failed';
}

/**
 * The revert data of a call the chain refused (an `estimateGas` or `call` error), to decode
 * against the contract's errors; null when the error carries none (the RPC failed, or the
 * contract reverted without data).
 */
export function revertData(error: unknown): Hex | null {
  if (!(error instanceof BaseError)) return null;
  const found = error.walk(carriesData);
  return carriesData(found) ? found.data : null;
}

const carriesData = (e: unknown): e is { readonly data: Hex } =>
  typeof e === 'object' && e !== null && 'data' in e && isHex(e.data) && e.data.length > 2;

/** The sender's count of mined transactions: a nonce below it is taken for good. */
export async function minedNonce(client: PublicClient, sender: Address): Promise<number> {
  return client.getTransactionCount({ address: sender, blockTag: 'latest' });
}
