import { type Hex, numberToHex, type RpcTransactionReceipt } from 'viem';
import type { Eip1193Provider } from '../../src/sandbox/chain.ts';

/**
 * The test wallet's EIP-5792 side: `wallet_getCapabilities`, `wallet_sendCalls` and
 * `wallet_getCallsStatus`, for a wallet whose spec offers atomic batches. A batch's calls are
 * sent on the chain in order, from the wallet's account, each one mined before the next (as
 * the transactions of a real wallet without account abstraction would be; what makes a batch
 * one transaction on a public network is the wallet's smart account, which the page never
 * sees). A wallet without the capability answers these methods as an older wallet does: 4200.
 */

/**
 * What the wallet says of atomic batches on its chains: EIP-5792's `atomic.status`, or
 * `atomicBatch`, the capability's name in the wallets that answered before the rename.
 */
export type AtomicSupport = 'supported' | 'ready' | 'unsupported' | 'atomicBatch';

interface Call {
  readonly to: Hex;
  readonly data?: Hex;
  readonly value?: Hex;
}

export interface CallBatch {
  readonly id: Hex;
  readonly chainId: number;
  readonly calls: readonly Call[];
  /** The transactions its calls became, in order. */
  readonly hashes: Hex[];
  /** 200 once every call succeeded; 500 when one reverted (the rest then not sent). */
  status: 200 | 500;
  /** How many status reads still answer 100 (pending) first, so the page has to poll. */
  pendingReads: number;
}

/** What the EIP-5792 methods need of the wallet they run in. */
export interface BatchingWallet {
  readonly address: Hex;
  readonly atomic: AtomicSupport | undefined;
  readonly chainId: number;
  readonly knownChainIds: ReadonlySet<number>;
  readonly batches: CallBatch[];
  /** Signs and sends one call on the wallet's chain, as `eth_sendTransaction` does. */
  send(call: Call): Promise<Hex>;
  /**
   * A smart account's wallet: every call in one transaction of the account (throws when it
   * reverts), so the batch is atomic on chain; without it, the calls are sent one by one.
   */
  sendAll?(calls: readonly Call[]): Promise<Hex>;
  /** The wallet's chain, for receipts. */
  provider(): Eip1193Provider;
  /** The payer's say: resolves to go on, throws 4001 when the payer declines. */
  confirm(): Promise<void>;
}

export const BATCH_METHODS = new Set([
  'wallet_getCapabilities',
  'wallet_sendCalls',
  'wallet_getCallsStatus',
]);

export function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const RECEIPT_WAIT_MS = 10_000;

async function receiptOf(provider: Eip1193Provider, hash: Hex): Promise<RpcTransactionReceipt> {
  const deadline = Date.now() + RECEIPT_WAIT_MS;
  for (;;) {
    const receipt = (await provider.request({
      method: 'eth_getTransactionReceipt',
      params: [hash],
    })) as RpcTransactionReceipt | null;
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function capabilities(wallet: BatchingWallet): Record<Hex, Record<string, unknown>> {
  const atomic = wallet.atomic;
  const answer: Record<Hex, Record<string, unknown>> = {};
  for (const chainId of wallet.knownChainIds) {
    answer[numberToHex(chainId)] =
      atomic === 'atomicBatch'
        ? { atomicBatch: { supported: true } }
        : { atomic: { status: atomic } };
  }
  return answer;
}

async function sendCalls(wallet: BatchingWallet, params: unknown): Promise<{ id: Hex }> {
  const [request] = params as [
    {
      version?: string;
      from?: string;
      chainId?: string;
      atomicRequired?: boolean;
      calls?: Call[];
    },
  ];
  if (request?.version !== '2.0.0') throw rpcError(-32602, 'version must be 2.0.0');
  if (request.from?.toLowerCase() !== wallet.address.toLowerCase()) {
    throw rpcError(4100, `the wallet holds no account ${request.from}`);
  }
  if (request.chainId !== numberToHex(wallet.chainId)) throw rpcError(5710, 'unsupported chain');
  if (request.atomicRequired && wallet.atomic === 'unsupported') {
    throw rpcError(5760, 'atomicity is not supported');
  }
  const calls = request.calls ?? [];
  if (calls.length === 0) throw rpcError(-32602, 'no calls');
  await wallet.confirm();
  const batch: CallBatch = {
    id: numberToHex(wallet.batches.length + 1, { size: 32 }),
    chainId: wallet.chainId,
    calls,
    hashes: [],
    status: 200,
    pendingReads: 1,
  };
  wallet.batches.push(batch);
  if (wallet.sendAll) {
    try {
      batch.hashes.push(await wallet.sendAll(calls));
    } catch {
      batch.status = 500;
    }
    return { id: batch.id };
  }
  for (const call of calls) {
    let hash: Hex;
    try {
      hash = await wallet.send(call);
    } catch {
      batch.status = 500;
      break;
    }
    batch.hashes.push(hash);
    const receipt = await receiptOf(wallet.provider(), hash);
    if (receipt.status !== '0x1') {
      batch.status = 500;
      break;
    }
  }
  return { id: batch.id };
}

async function callsStatus(wallet: BatchingWallet, params: unknown) {
  const [id] = params as [string];
  const batch = wallet.batches.find((b) => b.id === id);
  if (!batch) throw rpcError(5730, 'unknown bundle id');
  const pending = batch.pendingReads > 0;
  if (pending) batch.pendingReads--;
  const receipts = await Promise.all(
    batch.hashes.map(async (hash) => {
      const receipt = await receiptOf(wallet.provider(), hash);
      return {
        logs: receipt.logs.map((log) => ({
          address: log.address,
          data: log.data,
          topics: log.topics,
        })),
        status: receipt.status,
        blockHash: receipt.blockHash,
        blockNumber: receipt.blockNumber,
        gasUsed: receipt.gasUsed,
        transactionHash: receipt.transactionHash,
      };
    }),
  );
  return {
    version: '2.0.0',
    id: batch.id,
    chainId: numberToHex(batch.chainId),
    status: pending ? 100 : batch.status,
    atomic: true,
    ...(!pending && { receipts }),
  };
}

/** Answers one of the EIP-5792 methods (BATCH_METHODS) as the wallet would. */
export function handleBatchMethod(
  wallet: BatchingWallet,
  method: string,
  params: unknown,
): Promise<unknown> {
  if (wallet.atomic === undefined) {
    return Promise.reject(rpcError(4200, `The wallet does not support ${method}`));
  }
  switch (method) {
    case 'wallet_getCapabilities':
      return Promise.resolve(capabilities(wallet));
    case 'wallet_sendCalls':
      return sendCalls(wallet, params);
    default:
      return callsStatus(wallet, params);
  }
}
