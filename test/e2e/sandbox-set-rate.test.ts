import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { custom } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { withSandboxMethods } from '../../src/sandbox/rate-rpc.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { ROOT } from '../process.ts';

/**
 * `sandbox_setRate` on `/sandbox/rpc`, as the curl of docs/guides/sandbox.md sends it: the rate
 * a fiat request and a fiat link are quoted at (`/pay`'s conversionRate, requiredAmount,
 * rateTimestamp) follows it, and a browser page may not call it.
 */

let chain: LocalChain;
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337 });
  t = await createTestApp({
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
    sandbox: { provider: withSandboxMethods(chain) },
  });
  tenant = await createTenant(t.db);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await chain?.close();
});

const headers = () => ({ 'x-api-key': tenant.apiKey });

async function send(payload: unknown, origin?: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/sandbox/rpc',
    headers: { 'content-type': 'application/json', ...(origin && { origin }) },
    payload: payload as Record<string, unknown>,
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

const rpc = (method: string, params: unknown, origin?: string) =>
  send({ jsonrpc: '2.0', id: 1, method, params }, origin);

const GUIDE = join(ROOT, 'docs', 'guides', 'sandbox.md');

/** The sandbox guide's `sandbox_setRate` curl: its body, and the answer it shows. */
function guideExample(): { body: unknown; shows: string } {
  const guide = readFileSync(GUIDE, 'utf8');
  const match = /'(\{"jsonrpc":"2\.0","id":1,"method":"sandbox_setRate".*\})'\n#\s+(.*)\n/.exec(
    guide,
  );
  if (!match?.[1] || !match[2]) throw new Error(`no sandbox_setRate example in ${GUIDE}`);
  return { body: JSON.parse(match[1]), shows: match[2] };
}

async function quote(url: string) {
  const res = await t.app.inject({ method: 'GET', url, headers: headers() });
  expect(res.statusCode, `${res.body} ${t.logs.text().slice(-3000)}`).toBe(200);
  return res.json().metadata as {
    requiredAmount: string;
    conversionRate: string;
    rateTimestamp: string;
  };
}

describe('sandbox_setRate', () => {
  it('moves the rate /pay quotes a EUR request at', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '100',
        invoiceCurrency: 'EUR',
        paymentCurrency: 'USDC-sandbox',
        payee: accountOf(chain, 1).address,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const pay = `/v2/request/${created.json().requestId}/pay`;
    const before = await quote(pay);
    expect(before).toMatchObject({ conversionRate: '1.08', requiredAmount: '108' });

    const answer = await rpc('sandbox_setRate', [{ from: 'EUR', to: 'USD', rate: '1.10' }]);
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { from: 'EUR', to: 'USD', rate: '1.1', feed: expect.stringMatching(/^0x/) },
    });
    const after = await quote(pay);
    expect(after).toMatchObject({ conversionRate: '1.1', requiredAmount: '110' });
    // The new feed's answer dates from the block that deployed it.
    expect(Date.parse(after.rateTimestamp)).toBeGreaterThan(Date.parse(before.rateTimestamp));
  });

  it('moves the rate of a USD link paid in USDC', async () => {
    const target = resolveTarget(t.chains, {
      walletAddress: accountOf(chain, 2).address,
      chainId: 31337,
      tokenAddress: chain.addresses.usdc,
    });
    const destination = await activateDestination(t.db, t.clock, tenant.accountId, target);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: headers(),
      payload: {
        requests: [
          { destinationId: destination.destinationId, amount: '25', invoiceCurrency: 'USD' },
        ],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const pay = `/v2/secure-payments/${created.json().token}/pay`;
    expect(await quote(pay)).toMatchObject({ conversionRate: '1', requiredAmount: '25' });

    // The guide's call, as its curl sends it, answering what the guide shows.
    const example = guideExample();
    const answer = await send(example.body);
    expect(JSON.stringify(answer)).toBe(
      example.shows.replace('"0x…"', JSON.stringify(answer.result.feed)),
    );
    expect(answer.result).toMatchObject({ from: 'USDC', to: 'USD', rate: '0.95' });
    // 25 USD at 0.95 USD per USDC: 26.315789 USDC, rounded down to USDC's 6 decimals.
    expect(await quote(pay)).toMatchObject({
      conversionRate: '1.05263156',
      requiredAmount: '26.315789',
    });
    await rpc('sandbox_setRate', [{ from: 'usdc-sandbox', to: 'usd', rate: '1' }]);
    expect(await quote(pay)).toMatchObject({ conversionRate: '1', requiredAmount: '25' });
  });

  it('is refused to browser pages, and the rate stays', async () => {
    const answer = await rpc(
      'sandbox_setRate',
      [{ from: 'EUR', to: 'USD', rate: '2' }],
      'http://localhost:5173',
    );
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32601,
        message:
          'sandbox_setRate is not available to browser pages: call it from a script, such as curl',
      },
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount: '10',
        invoiceCurrency: 'EUR',
        paymentCurrency: 'USDC-sandbox',
        payee: accountOf(chain, 1).address,
      },
    });
    expect((await quote(`/v2/request/${created.json().requestId}/pay`)).conversionRate).toBe('1.1');
  });

  it('answers a bad pair as a JSON-RPC error, changing nothing', async () => {
    expect(await rpc('sandbox_setRate', [{ from: 'EUR', to: 'GBP', rate: '0.85' }])).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message:
          'No sandbox feed from EUR to GBP; the feeds are USDC→USD, USDT→USD, DAI→USD, ETH→USD, EUR→USD, GBP→USD, CNY→USD, JPY→USD',
      },
    });
  });
});
