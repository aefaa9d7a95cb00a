import pino from 'pino';
import {
  type Account,
  type Address,
  createWalletClient,
  custom,
  getAddress,
  type Hex,
  parseAbi,
} from 'viem';
import { expect } from 'vitest';
import type { FakeAggregator } from '../src/sandbox/aggregator/fake-aggregator.ts';
import type { BridgeRelayer } from '../src/sandbox/bridge-relayer.ts';
import { startLocalBridge } from '../src/sandbox/local-bridge.ts';
import type { TestClock } from './app.ts';
import { accountOf, type StandIn, standIn } from './chain.ts';

/**
 * Two local chains (three with `optimism`) with the real Request contracts and the local Across (SpokePool and
 * handler) on both, an Arbitrum and a Base stand-in; the fake routing aggregator over real HTTP
 * routing both chains' USDC, USDT and DAI through their SpokePools; and the bridge relayer filling
 * the deposits on the other chain, telling the fake what it did with each (`onSettled`), so the
 * fake's status operation answers as LI.FI would (src/sandbox/local-bridge.ts, which the
 * sandbox runs between its two chains). What the cross-chain end-to-end tests share, in process
 * (`injectApi`) or against a `payreq serve` process (`fetchApi`).
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);

export interface BridgeWorld {
  readonly base: StandIn;
  readonly arbitrum: StandIn;
  /** A third chain, an Optimism stand-in, when asked for (`optimism: true`). */
  readonly optimism: StandIn | null;
  readonly fake: FakeAggregator;
  readonly relayer: BridgeRelayer;
  /** Both stand-ins' settings and `LIFI_URL`, for an app or a process. */
  readonly env: Record<string, string>;
  readonly transports: StandIn['transports'];
  close(): Promise<void>;
}

/**
 * The world, its relayer started (every 20 ms). The fake dates its quotes on `clock` (the app's,
 * a real one: the chains keep the wall clock's time), else on the wall clock. `walletCount`:
 * funded wallets on each chain (the stand-ins' default on Base and Optimism, 8 on Arbitrum).
 * `optimism`: a third chain, bridged to and from the other two as they are to each other.
 */
export async function startBridgeWorld(
  options: { clock?: TestClock; walletCount?: number; optimism?: boolean } = {},
): Promise<BridgeWorld> {
  const base = await standIn(
    'base',
    options.walletCount === undefined ? {} : { walletCount: options.walletCount },
  );
  const arbitrum = await standIn('arbitrum-one', { walletCount: options.walletCount ?? 8 });
  const optimism = options.optimism
    ? await standIn(
        'optimism',
        options.walletCount === undefined ? {} : { walletCount: options.walletCount },
      )
    : null;
  const { clock } = options;
  // The fake aggregator and the relayer, wired as the sandbox wires them between its chains.
  const bridge = await startLocalBridge({
    chains: [arbitrum.chain, base.chain, ...(optimism ? [optimism.chain] : [])],
    logger: pino({ level: 'silent' }),
    pricing: { feeBps: 10, feeFlat: '0.5', executionDurationSeconds: 30 },
    quoteLifetimeSeconds: 600,
    now: () => (clock ? clock.now().getTime() : Date.now()),
  });
  const { aggregator: fake, relayer } = bridge;
  relayer.start(20);
  return {
    base,
    arbitrum,
    optimism,
    fake,
    relayer,
    env: { ...base.env, ...arbitrum.env, ...optimism?.env, LIFI_URL: fake.url },
    transports: { ...base.transports, ...arbitrum.transports, ...optimism?.transports },
    close: async () => {
      await bridge.close();
      await optimism?.chain.close();
      await arbitrum.chain.close();
      await base.chain.close();
    },
  };
}

export function balanceOf(chain: StandIn, token: Address, owner: Address): Promise<bigint> {
  return chain.chain.client.readContract({
    address: token,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** Polls `read` every 50 ms until `done` holds of its answer, for at most `timeoutMs`. */
export async function until<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** payreq's HTTP API as one tenant sees it: GET without a body, POST with one. */
export type Api = (
  path: string,
  body?: Record<string, unknown>,
) => Promise<{
  readonly status: number;
  readonly text: string;
  readonly headers: Readonly<Record<string, unknown>>;
}>;

/** The API of an app in this process (`createTestApp`), through `inject`. */
export function injectApi(
  app: {
    inject(options: object): Promise<{
      statusCode: number;
      body: string;
      headers: Readonly<Record<string, unknown>>;
    }>;
  },
  apiKey: string,
): Api {
  return async (path, body) => {
    const res = await app.inject({
      method: body ? 'POST' : 'GET',
      url: path,
      headers: { 'x-api-key': apiKey },
      ...(body && { payload: body }),
    });
    return { status: res.statusCode, text: res.body, headers: res.headers };
  };
}

/** The API of a `payreq serve` process at `url`, over HTTP. */
export function fetchApi(url: () => string, apiKey: string): Api {
  return async (path, body) => {
    const res = await fetch(`${url()}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      ...(body && { body: JSON.stringify(body) }),
    });
    return {
      status: res.status,
      text: await res.text(),
      headers: Object.fromEntries(res.headers),
    };
  };
}

/** `/pay`'s cross-chain answer, as far as these tests read it. */
export interface RouteAnswer {
  readonly transactions: readonly { to: Address; data: Hex; value: string }[];
  readonly metadata: {
    readonly routeType: string;
    readonly sourceAmount: string;
    readonly quoteExpiresAt: number;
    readonly executionDeadline: number;
    readonly rawStep: { readonly id: string };
  };
}

/** A link of one request for `amount` to `destinationId`: its token and request ids. */
export async function createLink(
  api: Api,
  destinationId: string,
  amount: string,
): Promise<{ token: string; requestIds: string[] }> {
  const created = await api('/v2/secure-payments', { requests: [{ destinationId, amount }] });
  expect(created.status, created.text).toBe(201);
  return JSON.parse(created.text);
}

/** `/pay` from Arbitrum's USDT for `wallet`: the approval and the bridge call. */
export async function quoteFromArbitrum(
  api: Api,
  token: string,
  wallet: Address,
): Promise<RouteAnswer> {
  const pay = await api(
    `/v2/secure-payments/${token}/pay?wallet=${wallet}&chain=ARBITRUM&token=USDT`,
  );
  expect(pay.status, pay.text).toBe(200);
  const answer: RouteAnswer = JSON.parse(pay.text);
  expect(answer.metadata.routeType).toBe('crosschain');
  expect(answer.transactions).toHaveLength(2);
  return answer;
}

/**
 * Sends transactions from `payer` on Arbitrum in order, each with its gas given (so one the
 * chain refuses reaches it rather than stopping at the estimate): their receipts. The local
 * chain answers a reverted transaction with its error: the promise rejects.
 */
export async function sendOnArbitrum(
  world: BridgeWorld,
  payer: Account,
  transactions: readonly { to: Address; data: Hex }[],
) {
  const { chain } = world.arbitrum;
  const sender = createWalletClient({
    account: payer,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  const receipts = [];
  for (const tx of transactions) {
    const hash = await sender.sendTransaction({ to: tx.to, data: tx.data, gas: 1_000_000n });
    receipts.push(await chain.client.waitForTransactionReceipt({ hash }));
  }
  return receipts;
}

/** Records the source transaction `deposit` as the link's cross-chain intent: its id. */
export async function recordTransfer(
  api: Api,
  token: string,
  deposit: Hex,
  payer: Address,
  sourceAmount: string,
): Promise<string> {
  const intent = await api(`/v2/secure-payments/${token}/intent`, {
    chain: 'ARBITRUM',
    token: 'USDC',
    txHash: deposit,
    executionKind: 'evm_cross_chain',
    payerAddress: payer,
    sourceToken: 'USDT',
    sourceAmount,
  });
  expect(intent.status, intent.text).toBe(200);
  return JSON.parse(intent.text).intentId;
}

/**
 * Pays the link `token` from Arbitrum: `/pay`'s route for test wallet `walletIndex` of
 * Arbitrum, its approval and deposit sent, the deposit recorded as the link's intent.
 */
export async function payFromArbitrum(
  world: BridgeWorld,
  api: Api,
  token: string,
  walletIndex: number,
): Promise<{ payer: Account; answer: RouteAnswer; deposit: Hex; intentId: string }> {
  const payer = accountOf(world.arbitrum.chain, walletIndex);
  const answer = await quoteFromArbitrum(api, token, payer.address);
  const [approval, bridge] = answer.transactions;
  if (!approval || !bridge) throw new Error('no approval and bridge call');
  expect(bridge.to).toBe(getAddress(world.arbitrum.chain.addresses.spokePool));
  const receipts = await sendOnArbitrum(world, payer, [approval, bridge]);
  for (const receipt of receipts) expect(receipt.status).toBe('success');
  const deposit = receipts[1]?.transactionHash;
  if (!deposit) throw new Error('no deposit sent');
  const intentId = await recordTransfer(
    api,
    token,
    deposit,
    payer.address,
    answer.metadata.sourceAmount,
  );
  return { payer, answer, deposit, intentId };
}
