import { custom } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * Calldata for a payer costs one RPC round trip, whatever the link: balances, allowances,
 * native balance, base fee (and the batch fee) all ride in one Multicall3 `eth_call`. The
 * transport here is the real chain's, with a tally of the methods that pass through it.
 */

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
const calls: string[] = [];

beforeAll(async () => {
  local = await standIn('base');
  const provider = local.chain.provider;
  const counted = custom(
    {
      request: (args: { method: string; params?: unknown }) => {
        calls.push(args.method);
        return provider.request(args);
      },
    },
    { retryCount: 0 },
  );
  t = await createTestApp({ env: local.env, transports: { base: counted } });
  tenant = await createTenant(t.db);
});
afterAll(async () => {
  await t.close();
  await local.chain.close();
});

async function link(currencies: string[]): Promise<string> {
  const requests = [];
  for (const [index, currencyId] of currencies.entries()) {
    const currency = t.chains.currency(currencyId);
    const target = resolveTarget(t.chains, {
      walletAddress: accountOf(local.chain, index + 1).address,
      chainId: 8453,
      tokenAddress:
        currency?.type === 'ETH'
          ? '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE'
          : (currency?.address ?? ''),
    });
    const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
    requests.push({ destinationId: destination.destinationId, amount: '1' });
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { requests },
  });
  return res.json().token;
}

describe('chain reads per calldata call', () => {
  it.each([[['USDC-base']], [['ETH-base']], [['USDC-base', 'DAI-base', 'USDT-base', 'ETH-base']]])(
    'is one eth_call for %j',
    async (currencies) => {
      const token = await link(currencies);
      calls.length = 0;
      const res = await t.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${token}/pay?wallet=${accountOf(local.chain, 0).address}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(calls).toEqual(['eth_call']);
    },
  );
});

describe('chain reads per payout', () => {
  const payout = (currency: string, payee: number) => ({
    payee: accountOf(local.chain, payee).address,
    amount: '1',
    invoiceCurrency: currency,
    paymentCurrency: currency,
  });

  it.each([['USDC-base'], ['ETH-base']])('is one eth_call for a %s payout', async (currency) => {
    calls.length = 0;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/payouts',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { ...payout(currency, 1), payerWallet: accountOf(local.chain, 0).address },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(calls).toEqual(['eth_call']);
  });

  it('is one eth_call for a recurring payout (the payer’s allowance of the recurring proxy)', async () => {
    calls.length = 0;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/payouts',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        ...payout('USDC-base', 1),
        recurrence: {
          startDate: new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
          frequency: 'DAILY',
          totalPayments: 5,
          payer: accountOf(local.chain, 0).address,
        },
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(calls).toEqual(['eth_call']);
  });

  it('is one eth_call for a batch of four currencies', async () => {
    calls.length = 0;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/payouts/batch',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        requests: ['USDC-base', 'DAI-base', 'USDT-base', 'ETH-base'].map((c, i) =>
          payout(c, i + 1),
        ),
        payer: accountOf(local.chain, 0).address,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(calls).toEqual(['eth_call']);
  });
});
