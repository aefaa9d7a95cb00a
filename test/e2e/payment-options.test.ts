import {
  type Address,
  createWalletClient,
  custom,
  getAddress,
  keccak256,
  parseAbi,
  parseUnits,
  toHex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import { evmToTron } from '../../src/chains/tron-address.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * `paymentOptions` on `GET /v2/secure-payments/{token}?wallet=`, read from three local chains
 * running the real contracts (standing in for Base, Arbitrum and Optimism): each balance exact
 * to the base unit, `hasEnoughBalance` on both sides of the amount needed (on the link's chain
 * exactly what /pay asks, payer-borne fees included), a chain that fails or never answers left
 * out of the answer (the other chains still in it), nothing offered to a Tron link, and no
 * `paymentOptions` without `wallet`. Every answer is also held to the reference's schemas (test/conformance.ts).
 */

const STOOD_IN = ['base', 'arbitrum-one', 'optimism'] as const;
type StoodIn = (typeof STOOD_IN)[number];

const TRANSFER = parseAbi(['function transfer(address to, uint256 amount)']);

let chains: Record<StoodIn, StandIn>;
let t: TestApp;
let tenant: Tenant;
/** Ethereum's RPC: fails at once, or, when set, never answers. */
let ethereumHangs = false;

beforeAll(async () => {
  const started = await Promise.all(STOOD_IN.map((network) => standIn(network)));
  chains = Object.fromEntries(STOOD_IN.map((network, i) => [network, started[i]])) as Record<
    StoodIn,
    StandIn
  >;
  const ethereum = custom(
    {
      request: () =>
        ethereumHangs
          ? new Promise<never>(() => {})
          : Promise.reject(new Error('connection refused (injected)')),
    },
    { retryCount: 0 },
  );
  t = await createTestApp({
    env: {
      ...Object.assign({}, ...started.map((s) => s.env)),
      PAYMENT_OPTIONS_TIMEOUT_MS: '1000',
    },
    transports: {
      ...Object.assign({}, ...started.map((s) => s.transports)),
      mainnet: ethereum,
    },
  });
  tenant = await createTenant(t.db);
}, 180_000);
afterAll(async () => {
  await t?.close();
  for (const network of STOOD_IN) await chains?.[network]?.chain.close();
});

const CHAIN_IDS: Record<StoodIn, number> = { base: 8453, 'arbitrum-one': 42161, optimism: 10 };

/** A wallet no test holds anything in, so that its balances are exactly what a test sends it. */
function freshWallet(seed: string): Address {
  return getAddress(keccak256(toHex(`payment options ${seed}`)).slice(0, 42));
}

type Token = 'usdc' | 'usdt' | 'dai';

/** Sends `amount` (in whole tokens, a decimal string) of a stand-in's token to `to`. */
async function fund(network: StoodIn, token: Token, to: Address, amount: string): Promise<void> {
  const { chain } = chains[network];
  const wallet = createWalletClient({
    account: accountOf(chain, 0),
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  const hash = await wallet.writeContract({
    address: getAddress(chain.addresses[token]),
    abi: TRANSFER,
    functionName: 'transfer',
    args: [to, parseUnits(amount, token === 'dai' ? 18 : 6)],
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
}

function get(url: string) {
  return t.app.inject({ method: 'GET', url, headers: { 'x-api-key': tenant.apiKey } });
}

let payees = 0;

/** A link on Base paying `amounts` (decimal strings) of each token to a payee of its own. */
async function baseLink(...requests: { token: Token; amount: string }[]): Promise<string> {
  const items = [];
  for (const [index, request] of requests.entries()) {
    const target = resolveTarget(t.chains, {
      walletAddress: freshWallet(`payee ${++payees} ${index}`),
      chainId: CHAIN_IDS.base,
      tokenAddress: chains.base.chain.addresses[request.token],
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    items.push({ destinationId, amount: request.amount });
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { requests: items },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token as string;
}

async function optionsOf(token: string, query: string) {
  const res = await get(`/v2/secure-payments/${token}?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().paymentOptions as Record<string, Record<string, unknown>> | undefined;
}

describe('paymentOptions', () => {
  it('gives each chain’s balances exactly, and whether each covers the link’s 25 USDC', async () => {
    const payer = freshWallet('exact');
    await fund('base', 'usdc', payer, '25');
    await fund('base', 'usdt', payer, '7.5');
    await fund('arbitrum-one', 'usdt', payer, '30.000001');
    await fund('optimism', 'usdc', payer, '24.999999');
    const token = await baseLink({ token: 'usdc', amount: '25' });

    const options = await optionsOf(token, `wallet=${payer}`);
    expect(options).toEqual({
      BASE: {
        // The link's own currency on its own chain: exactly the link's amount, and the balance
        // equal to it covers it.
        USDC: { balance: '25', hasEnoughBalance: true, neededAmount: '25' },
        USDT: { balance: '7.5', hasEnoughBalance: false, neededAmount: '25' },
      },
      ARBITRUM: {
        USDC: { balance: '0', hasEnoughBalance: false, neededAmount: '25' },
        USDT: { balance: '30.000001', hasEnoughBalance: true, neededAmount: '25' },
      },
      OPTIMISM: {
        // One base unit short.
        USDC: { balance: '24.999999', hasEnoughBalance: false, neededAmount: '25' },
        USDT: { balance: '0', hasEnoughBalance: false, neededAmount: '25' },
      },
    });
    // The link's chain leads; Ethereum's RPC failed, so it is left out; no other network has an
    // RPC here. USDT0 has no contract on the stand-ins, so it is no option there.
    expect(Object.keys(options ?? {})).toEqual(['BASE', 'ARBITRUM', 'OPTIMISM']);
  });

  it('needs what /pay asks on the link’s own chain, payer-borne fee legs included', async () => {
    // A platform's payer-borne fee of 50 bps capped at 0.40 USD: a 100 USDC link asks 100.4.
    const platform = await createOrchestrator(t.db, 'Platform');
    const fee = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/fee-configs',
      headers: { 'x-orchestrator-key': platform.orchestratorKey },
      payload: {
        flow: 'incoming',
        feeBearer: 'payer',
        bps: 50,
        usdCap: '0.40',
        evmRecipientAddress: freshWallet('platform fee'),
      },
    });
    expect(fee.statusCode, fee.body).toBe(201);
    const target = resolveTarget(t.chains, {
      walletAddress: freshWallet('fee payee'),
      chainId: CHAIN_IDS.base,
      tokenAddress: chains.base.chain.addresses.usdc,
    });
    const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const { clientId } = await createClientId(t.db, {
      accountId: tenant.accountId,
      label: 'with a platform',
      allowedDomains: [],
      payeeDestinationId: destination.destinationId,
    });
    await linkClientId(t.db, platform.orchestratorId, clientId);
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-orchestrator-key': platform.orchestratorKey, 'x-client-id': clientId },
      payload: { requests: [{ destinationId: destination.destinationId, amount: '100' }] },
    });
    expect(link.statusCode, link.body).toBe(201);
    const token = link.json().token as string;
    const payer = freshWallet('fee payer');
    await fund('base', 'usdc', payer, '100.4');
    await fund('arbitrum-one', 'usdc', payer, '100.399999');

    const options = await optionsOf(token, `wallet=${payer}`);
    expect(options?.BASE?.USDC).toEqual({
      balance: '100.4',
      hasEnoughBalance: true,
      neededAmount: '100.4',
    });
    expect(options?.ARBITRUM?.USDC).toEqual({
      balance: '100.399999',
      hasEnoughBalance: false,
      neededAmount: '100.4',
    });
    const pay = await get(`/v2/secure-payments/${token}/pay?wallet=${payer}`);
    expect(pay.statusCode, pay.body).toBe(200);
    expect(pay.json().metadata.requiredAmount).toBe('100.4');
  });

  it('reads the balances of eoaWallet when a smart account pays with its owner’s funds', async () => {
    const owner = freshWallet('owner');
    const account = freshWallet('smart account');
    await fund('base', 'usdc', owner, '3');
    await fund('base', 'usdc', account, '100');
    const token = await baseLink({ token: 'usdc', amount: '2.5' });

    const options = await optionsOf(token, `wallet=${account}&eoaWallet=${owner}`);
    // A smart account is not routed from another chain by /pay: its own chain's options only.
    expect(options).toEqual({
      BASE: { USDC: { balance: '3', hasEnoughBalance: true, neededAmount: '2.5' } },
    });
    const pay = await get(
      `/v2/secure-payments/${token}/pay?wallet=${account}&eoaWallet=${owner}&chain=ARBITRUM&token=USDC`,
    );
    expect(pay.statusCode, pay.body).toBe(400);
    expect(pay.json().code).toBe('crosschain_unavailable');
  });

  it('adds up a batch’s requests in one currency, and keeps a batch on its chain, as /pay does', async () => {
    const payer = freshWallet('batch');
    await fund('base', 'usdc', payer, '20');
    await fund('base', 'dai', payer, '1.25');
    await fund('arbitrum-one', 'usdc', payer, '12');

    const usdcOnly = await baseLink(
      { token: 'usdc', amount: '10' },
      { token: 'usdc', amount: '12' },
    );
    const same = await optionsOf(usdcOnly, `wallet=${payer}`);
    // /pay routes no batch from another chain, so no other chain is offered.
    expect(same).toEqual({
      BASE: { USDC: { balance: '20', hasEnoughBalance: false, neededAmount: '22' } },
    });
    const pay = await get(
      `/v2/secure-payments/${usdcOnly}/pay?wallet=${payer}&chain=ARBITRUM&token=USDC`,
    );
    expect(pay.statusCode, pay.body).toBe(400);
    expect(pay.json().code).toBe('crosschain_unavailable');

    // Two currencies: the same-chain options only, each against its own requests.
    const mixed = await baseLink({ token: 'usdc', amount: '10' }, { token: 'dai', amount: '1.25' });
    expect(await optionsOf(mixed, `wallet=${payer}`)).toEqual({
      BASE: {
        USDC: { balance: '20', hasEnoughBalance: true, neededAmount: '10' },
        DAI: { balance: '1.25', hasEnoughBalance: true, neededAmount: '1.25' },
      },
    });
  });

  it('offers a DAI link the stablecoins of other chains at their face value, in their decimals', async () => {
    const payer = freshWallet('dai');
    await fund('optimism', 'usdc', payer, '1');
    const token = await baseLink({ token: 'dai', amount: '0.0000015' });

    const options = await optionsOf(token, `wallet=${payer}`);
    expect(options?.BASE?.DAI).toEqual({
      balance: '0',
      hasEnoughBalance: false,
      neededAmount: '0.0000015',
    });
    // 1.5 µUSD in a 6-decimal token is rounded up to what a payer can send: 0.000002.
    expect(options?.OPTIMISM?.USDC).toEqual({
      balance: '1',
      hasEnoughBalance: true,
      neededAmount: '0.000002',
    });
  });

  it('leaves out a chain whose RPC never answers, and answers with the others', async () => {
    const payer = freshWallet('hang');
    await fund('arbitrum-one', 'usdc', payer, '5');
    const token = await baseLink({ token: 'usdc', amount: '4' });
    ethereumHangs = true;
    try {
      const options = await optionsOf(token, `wallet=${payer}`);
      expect(options).not.toHaveProperty('ETHEREUM');
      expect(Object.keys(options ?? {})).toEqual(['BASE', 'ARBITRUM', 'OPTIMISM']);
      expect(options?.ARBITRUM?.USDC).toEqual({
        balance: '5',
        hasEnoughBalance: true,
        neededAmount: '4',
      });
    } finally {
      ethereumHangs = false;
    }
    expect(t.logs.text()).toContain('"reason":"timeout"');
  });

  it('offers a Tron link nothing: the sources are EVM chains', async () => {
    const target = resolveTarget(t.chains, {
      walletAddress: evmToTron(freshWallet('tron payee')),
      chainId: 728126428,
      tokenAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    });
    const { destinationId } = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const link = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { requests: [{ destinationId, amount: '4' }] },
    });
    expect(link.statusCode, link.body).toBe(201);
    const wallet = evmToTron(freshWallet('tron payer'));
    expect(await optionsOf(link.json().token, `wallet=${wallet}`)).toEqual({});
    // A source chain and token are refused a Tron link here as /pay refuses them.
    const url = `/v2/secure-payments/${link.json().token}`;
    const display = await get(`${url}?chain=ARBITRUM&token=USDT`);
    expect(display.statusCode).toBe(400);
    expect(display.json()).toEqual((await get(`${url}/pay?chain=ARBITRUM&token=USDT`)).json());
    expect(display.json().code).toBe('crosschain_unavailable');
  });

  it('takes the source chain and token as /pay does: checked, the answer the same', async () => {
    const token = await baseLink({ token: 'usdc', amount: '2' });
    const payer = freshWallet('display source payer');
    const url = `/v2/secure-payments/${token}?wallet=${payer}`;
    const plain = await get(url);
    expect(plain.statusCode, plain.body).toBe(200);
    const sourced = await get(`${url}&chain=ARBITRUM&token=USDT`);
    expect(sourced.statusCode, sourced.body).toBe(200);
    expect(sourced.json()).toEqual(plain.json());
    const alone = await get(`${url}&chain=ARBITRUM`);
    expect(alone.statusCode).toBe(400);
    expect(alone.json().errors).toEqual([
      { field: 'token', message: 'chain and token must be sent together' },
    ]);
    expect((await get(`${url}&chain=ARBITRUM&token=DAI`)).statusCode).toBe(400);
  });

  it('answers without paymentOptions when no wallet is given', async () => {
    const token = await baseLink({ token: 'usdc', amount: '1' });
    const res = await get(`/v2/secure-payments/${token}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).not.toHaveProperty('paymentOptions');
  });

  it('refuses a wallet that is no address with 400, as /pay does', async () => {
    const token = await baseLink({ token: 'usdc', amount: '1' });
    const res = await get(`/v2/secure-payments/${token}?wallet=0x1234`);
    expect(res.statusCode, res.body).toBe(400);
    const pay = await get(`/v2/secure-payments/${token}/pay?wallet=0x1234`);
    expect(res.json()).toEqual(pay.json());
  });
});
