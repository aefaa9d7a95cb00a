import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type Address, custom, getAddress, parseAbi } from 'viem';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import { startLocalChain } from '../../src/sandbox/chain.ts';
import { withSandboxMethods } from '../../src/sandbox/rate-rpc.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { launchChromium } from '../browser.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { freePort, ROOT } from '../process.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';
import {
  type HomeChain,
  installTestWallets,
  type TestWallet,
  type TestWalletSpec,
} from './wallet.ts';

/**
 * Everything a pay-page test needs, real end to end: the service listening on a loopback port
 * (the page and the API on one origin, as `npm start` serves them), a local chain standing in
 * for Base with the real Request contracts, payment detection polling it, the webhook
 * dispatcher sending to a real receiver, and a headless Chromium.
 */

const CHAIN_ID = 8453;
const SANDBOX_CHAIN_ID = 31337;
const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);

/** Where tests write screenshots: a build artifact, never committed. */
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'pay-page');

/** TST, the permit token, is the sandbox network's only (`network: 'sandbox'`). */
type Currency = 'USDC' | 'DAI' | 'ETH' | 'TST';

export interface LinkItem {
  readonly currency: Currency;
  readonly amount: string;
  /** Sandbox wallet index of the payee. */
  readonly payee: number;
  /** A fiat code: the amount is in it, paid in `currency` at the on-chain rate. */
  readonly invoiceCurrency?: string;
}

interface Opened {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly wallets: TestWallet[];
}

export interface PayPageRig {
  readonly t: TestApp;
  readonly local: StandIn;
  readonly browser: Browser;
  readonly origin: string;
  readonly tenant: Tenant;
  readonly receiver: Receiver;
  /** Payment detection on the local chain; a test may stop it to hold a link unconfirmed. */
  readonly indexer: Indexer;
  link(items: readonly LinkItem[], extra?: Record<string, unknown>): Promise<string>;
  /**
   * A hosted payout link (`POST /v2/secure-payments/payouts`) from wallet `creator` (or a Safe),
   * on the rig's network or on `network`, another chain of the world's.
   */
  payout(
    item: LinkItem & { readonly creator: number | Address; readonly network?: string },
  ): Promise<string>;
  /** Merges payout links into a batch payout link (`POST /v2/secure-payments/batch-payouts`). */
  batchPayout(tokens: readonly string[]): Promise<string>;
  /**
   * Groups payout links into a multicall payout (`POST /v2/secure-payments/multicall-payouts`),
   * with `extra` fields of the body (`requestedExecutionKind`).
   */
  multicall(childTokens: readonly string[], extra?: Record<string, unknown>): Promise<string>;
  /**
   * How many requests the app received, from anyone, whose URL holds `fragment` (a link's
   * calldata: `<token>/pay?`). Read from the URLs as sent: the log masks link tokens.
   */
  asked(fragment: string): number;
  /** `GET` on the API with the tenant's key: status code and body. */
  get(path: string): Promise<{ readonly status: number; readonly body: Record<string, unknown> }>;
  /** The page of `token` in a fresh browser context with these wallets installed. */
  open(
    token: string,
    wallets: readonly TestWalletSpec[],
    viewport?: { width: number; height: number },
  ): Promise<Opened>;
  /** The page at `PAY_URL/?<query>` (a recurring payout's: `recurring=<pay token>`), likewise. */
  openAt(query: string, wallets: readonly TestWalletSpec[]): Promise<Opened>;
  balance(currency: Currency, owner: Address): Promise<bigint>;
  wallet(index: number): TestWalletSpec['account'];
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** Payees and payers: each test pays from a wallet of its own, so allowances do not leak. */
const WALLETS = 16;

/**
 * The chain stands in for Base by default; `sandbox` runs it as the sandbox network instead
 * (its chain id, fixed addresses, mock feeds), served at /sandbox/rpc as `npm start` serves it.
 * `env`: more of the service's configuration (the operator's protocol fee, say).
 */
export async function startPayPageRig(
  options: {
    readonly network?: 'base' | 'sandbox';
    readonly env?: Readonly<Record<string, string>>;
    /**
     * Chains the caller runs (a cross-chain world, test/bridge-world.ts, which closes them):
     * `base` is the link's chain, `env` and `transports` configure every chain of the world, and
     * the wallets also know `walletChains` (a payer's other network).
     */
    readonly world?: {
      readonly base: StandIn;
      readonly env: Readonly<Record<string, string>>;
      readonly transports: StandIn['transports'];
      readonly walletChains: readonly HomeChain[];
    };
  } = {},
): Promise<PayPageRig> {
  const network = options.network ?? 'base';
  const chainId = network === 'sandbox' ? SANDBOX_CHAIN_ID : CHAIN_ID;
  const more = options.world;
  const local: StandIn =
    more?.base ??
    (network === 'sandbox'
      ? await sandboxStandIn()
      : await standIn('base', { walletCount: WALLETS }));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // Every URL asked for, as sent: the log masks link tokens.
  const urls: string[] = [];
  const t = await createTestApp({
    env: {
      ...local.env,
      ...more?.env,
      ...options.env,
      BASE_URL: origin,
      PAY_URL: origin,
      ALLOW_LOCAL_WEBHOOKS: 'true',
    },
    extend: (app) => {
      app.addHook('onRequest', (request, _reply, done) => {
        urls.push(request.url);
        done();
      });
    },
    transports: { ...local.transports, ...more?.transports },
    clock: createRealClock(),
    ...(network === 'sandbox' && { sandbox: { provider: withSandboxMethods(local.chain) } }),
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  const tenant = await createTenant(t.db);
  const receiver = await startReceiver();
  const hook = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url: receiver.url },
  });
  if (hook.statusCode !== 201) throw new Error(`webhook: ${hook.body}`);
  // The indexer runs on the sandbox as on any EVM network (main.ts starts one for it too).
  const indexer: Indexer = testIndexer(t, {
    network,
    confirmations: 0,
  });
  indexer.start(200);
  const dispatcher: Dispatcher = testDispatcher(t);
  dispatcher.start(200);
  const browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  const destinations = new Map<string, string>();
  const tokenOf = (currency: Currency): string =>
    currency === 'ETH'
      ? NATIVE
      : currency === 'USDC'
        ? local.chain.addresses.usdc
        : currency === 'TST'
          ? local.chain.addresses.tst
          : local.chain.addresses.dai;

  const destination = async (currency: Currency, payee: number): Promise<string> => {
    const key = `${currency}:${payee}`;
    const known = destinations.get(key);
    if (known) return known;
    const target = resolveTarget(t.chains, {
      walletAddress: accountOf(local.chain, payee).address,
      chainId,
      tokenAddress: tokenOf(currency),
    });
    const made = await activateDestination(t.db, t.clock, tenant.accountId, target);
    destinations.set(key, made.destinationId);
    return made.destinationId;
  };

  const openPage = async (
    query: string,
    specs: readonly TestWalletSpec[],
    viewport: { width: number; height: number },
  ): Promise<Opened> => {
    const context = await browser.newContext({ viewport });
    const wallets = await installTestWallets(context, local.chain, specs, more?.walletChains);
    const page = await context.newPage();
    await page.goto(`${origin}/?${query}`);
    return { context, page, wallets };
  };

  return {
    t,
    local,
    browser,
    origin,
    tenant,
    receiver,
    indexer,
    async link(items, extra = {}) {
      const requests = [];
      for (const item of items) {
        requests.push({
          destinationId: await destination(item.currency, item.payee),
          amount: item.amount,
          ...(item.invoiceCurrency !== undefined && { invoiceCurrency: item.invoiceCurrency }),
        });
      }
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments',
        headers: { 'x-api-key': tenant.apiKey },
        payload: { requests, ...extra },
      });
      if (res.statusCode !== 201) throw new Error(`link: ${res.body}`);
      return res.json().token;
    },
    async payout(item) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments/payouts',
        headers: { 'x-api-key': tenant.apiKey },
        payload: {
          recipient: accountOf(local.chain, item.payee).address,
          creatorWalletAddress:
            typeof item.creator === 'number'
              ? accountOf(local.chain, item.creator).address
              : item.creator,
          network: item.network ?? network,
          currency: `${item.currency}-${item.network ?? network}`,
          amount: item.amount,
        },
      });
      if (res.statusCode !== 201) throw new Error(`payout: ${res.body}`);
      return res.json().token;
    },
    async batchPayout(tokens) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments/batch-payouts',
        headers: { 'x-api-key': tenant.apiKey },
        payload: { tokens },
      });
      if (res.statusCode !== 201) throw new Error(`batch payout: ${res.body}`);
      return res.json().token;
    },
    async multicall(childTokens, extra = {}) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/secure-payments/multicall-payouts',
        headers: { 'x-api-key': tenant.apiKey },
        payload: { childTokens, ...extra },
      });
      if (res.statusCode !== 201) throw new Error(`multicall: ${res.body}`);
      return res.json().token;
    },
    asked(fragment) {
      return urls.filter((url) => url.includes(fragment)).length;
    },
    async get(path) {
      const res = await t.app.inject({
        method: 'GET',
        url: path,
        headers: { 'x-api-key': tenant.apiKey },
      });
      return { status: res.statusCode, body: res.json() };
    },
    open(token, specs, viewport = { width: 1280, height: 800 }) {
      return openPage(`token=${token}`, specs, viewport);
    },
    openAt(query, specs) {
      return openPage(query, specs, { width: 1280, height: 800 });
    },
    async balance(currency, owner) {
      if (currency === 'ETH') return local.chain.client.getBalance({ address: owner });
      return local.chain.client.readContract({
        address: getAddress(tokenOf(currency)),
        abi: TOKEN_ABI,
        functionName: 'balanceOf',
        args: [owner],
      });
    },
    wallet: (index) => accountOf(local.chain, index),
    async screenshot(page, name) {
      const size = page.viewportSize();
      await page.screenshot({
        path: join(ARTIFACTS, `${name}-${size?.width}x${size?.height}.png`),
        fullPage: true,
      });
    },
    async close() {
      await browser?.close();
      await indexer.stop();
      await dispatcher.stop();
      await receiver.close();
      await t.close();
      if (!more) await local.chain.close();
    },
  };
}

/** The sandbox network's chain: fixed addresses the registry already knows, so no overrides. */
async function sandboxStandIn(): Promise<StandIn> {
  // A payment the chain refuses is mined and fails, as on a public network.
  const chain = await startLocalChain({
    chainId: SANDBOX_CHAIN_ID,
    walletCount: WALLETS,
    revertsInReceipts: true,
  });
  return {
    chain,
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
  };
}
