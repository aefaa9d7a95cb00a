import { type Address, type Client, numberToHex } from 'viem';
import type { EvmCall } from '../calldata.ts';
import { codeOf } from './problems.ts';

/**
 * EIP-5792 atomic batches: every call of a payment (approvals, the payment, the fee legs after
 * it) in one `wallet_sendCalls` request, so the payer confirms once and the calls land together
 * or not at all. Only when the wallet says, through `wallet_getCapabilities`, that it executes
 * batches atomically on the link's chain; every other wallet pays one call at a time.
 */

const CALLS_POLL_MS = 1_000;
/** The version of the request's shape (EIP-5792 as final); older wallets read it the same. */
const SEND_CALLS_VERSION = '2.0.0';

/**
 * The wallet cannot take the batch as asked: the method is unknown (EIP-1193 4200, JSON-RPC
 * -32601), or EIP-5792 refuses it: a capability it does not support (5700), the chain (5710),
 * the payer declined to upgrade the account (5750), or atomic execution is not available (5760).
 */
const CANNOT_BATCH = new Set([4200, -32601, 5700, 5710, 5750, 5760]);

export function cannotBatch(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && CANNOT_BATCH.has(code);
}

type Capabilities = Readonly<Record<string, unknown>>;

/**
 * Whether the wallet runs a batch atomically on `chainId`: the chain's `atomic.status` is
 * `supported` or `ready` (the wallet upgrades the account, with the payer's consent, when it
 * sends), or, as wallets answered before the capability was renamed, `atomicBatch.supported`.
 * Capabilities under chain `0x0` hold for every chain. Any failure to answer is a no: the
 * payment then goes one call at a time, which every wallet can do.
 */
export async function offersAtomic(
  client: Client,
  account: Address,
  chainId: number,
): Promise<boolean> {
  const hex = numberToHex(chainId);
  let answer: unknown;
  try {
    answer = await client.request({ method: 'wallet_getCapabilities', params: [account, [hex]] });
  } catch {
    return false;
  }
  if (typeof answer !== 'object' || answer === null) return false;
  // Keys are hex chain ids, some wallets' in capitals: compared by their value.
  const chains = Object.entries(answer as Capabilities)
    .filter(([key]) => /^0x[0-9a-f]+$/i.test(key) && [0, chainId].includes(Number(key)))
    .map(([, value]) => value as Capabilities | null);
  return chains.some((capabilities) => {
    const atomic = capabilities?.atomic as { status?: unknown } | undefined;
    const legacy = capabilities?.atomicBatch as { supported?: unknown } | undefined;
    return (
      atomic?.status === 'supported' || atomic?.status === 'ready' || legacy?.supported === true
    );
  });
}

/** Sends the calls as one atomic batch; returns the wallet's id of it. */
export async function sendAtomic(
  client: Client,
  account: Address,
  chainId: number,
  calls: readonly EvmCall[],
): Promise<string> {
  const sent: unknown = await client.request({
    method: 'wallet_sendCalls',
    params: [
      {
        version: SEND_CALLS_VERSION,
        chainId: numberToHex(chainId),
        from: account,
        atomicRequired: true,
        calls: calls.map((call) => ({ to: call.to, data: call.data, value: call.value })),
      },
    ],
  });
  // The first drafts of EIP-5792 answered the id alone.
  const id = typeof sent === 'string' ? sent : (sent as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') throw new Error('The wallet gave no id for the calls it took');
  return id;
}

export interface BatchOutcome {
  /** Included on chain without a revert (status 2xx). */
  readonly ok: boolean;
  /** Its transactions, in the order they were included: one when the wallet sent one. */
  readonly hashes: readonly string[];
}

/** Status as a number: 1xx pending, 2xx confirmed, 4xx failed off chain, 5xx reverted. */
function statusCode(status: unknown): number {
  // Wallets of the first drafts answered in words.
  if (status === 'PENDING') return 100;
  if (status === 'CONFIRMED') return 200;
  return Number(status);
}

/** Polls `wallet_getCallsStatus` until the batch is confirmed (200) or has failed (400 and up). */
export async function batchOutcome(client: Client, id: string): Promise<BatchOutcome> {
  for (;;) {
    const answer = (await client.request({ method: 'wallet_getCallsStatus', params: [id] })) as {
      status?: unknown;
      receipts?: readonly { transactionHash?: unknown }[];
    };
    const code = statusCode(answer.status);
    // A status that is not a number says nothing will come: taken as a failure, not waited on.
    if (code >= 200 || Number.isNaN(code)) {
      const hashes = (answer.receipts ?? []).flatMap((receipt) =>
        typeof receipt.transactionHash === 'string' ? [receipt.transactionHash] : [],
      );
      return { ok: code >= 200 && code < 300, hashes };
    }
    await new Promise((resolve) => setTimeout(resolve, CALLS_POLL_MS));
  }
}
