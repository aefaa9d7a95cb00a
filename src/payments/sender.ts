import {
  type Address,
  type Hex,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
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

/** The sender's count of mined transactions: a nonce below it is taken for good. */
export async function minedNonce(client: PublicClient, sender: Address): Promise<number> {
  return client.getTransactionCount({ address: sender, blockTag: 'latest' });
}
