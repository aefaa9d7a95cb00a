import { type Address, custom, parseAbi } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, sendAll } from '../chain.ts';
import { checkAnswer, takeViolations } from '../conformance.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * Fiat invoices through the API, on the sandbox chain's real conversion contracts and mock
 * feeds (1 USD = 1 USDC = 1 DAI, 1 ETH = 2,000 USD, 1 EUR = 1.08 USD, 1 JPY = 0.0067 USD):
 * `POST /v2/request` in fiat, `/pay` with the wallet, the transactions sent as a wallet sends
 * them, detection crediting the request in its own currency, and the webhooks and status
 * saying both amounts.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);

let chain: LocalChain;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337, walletCount: 12 });
  t = await createTestApp({
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  indexer = testIndexer(t, { network: 'sandbox' as never, confirmations: 1 });
  dispatcher = testDispatcher(t);
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-client-id': tenant.backendClientId },
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await t?.close();
  await chain?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});
afterEach(() => {
  expect(receiver.refused).toEqual([]);
});

// The backend client ID, whose webhook hears its requests' payments.
const headers = () => ({ 'x-client-id': tenant.backendClientId });
const payer = () => accountOf(chain, 3);

async function balance(currency: string, owner: string): Promise<bigint> {
  if (currency === 'ETH-sandbox') return chain.client.getBalance({ address: owner as Address });
  return chain.client.readContract({
    address: t.chains.currency(currency)?.address as Address,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner as Address],
  });
}

async function createFiatRequest(
  invoiceCurrency: string,
  paymentCurrency: string,
  amount: string,
  payee: string,
) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: headers(),
    payload: { amount, invoiceCurrency, paymentCurrency, payee },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().requestId as string;
}

type ReferenceTransaction = { to: Address; data: `0x${string}`; value: { hex: `0x${string}` } };

/** The reference's transactions sent by the payer's wallet, in order, then found by detection. */
async function sendAndDetect(transactions: readonly ReferenceTransaction[]) {
  const sent: EvmTransaction[] = transactions.map((tx) => ({
    to: tx.to,
    data: tx.data,
    value: tx.value.hex,
    chainId: 31337,
  }));
  await sendAll(chain, payer(), sent);
  // One block on top: the indexer records what is behind the head.
  await chain.provider.request({ method: 'evm_mine' } as never);
  await indexer.tick();
}

/** `/pay` with the payer's wallet, sent as the wallet would, then found by detection. */
async function pay(requestId: string, amount?: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}/pay?wallet=${payer().address}${amount ? `&amount=${amount}` : ''}`,
    headers: headers(),
  });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  await sendAndDetect(body.transactions);
  return body.metadata;
}

async function status(requestId: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: headers(),
  });
  expect(res.statusCode).toBe(200);
  checkAnswer('GET', '/v2/request/:requestId', [], res.statusCode, res.body);
  expect(takeViolations()).toEqual([]);
  return res.json();
}

describe('a fiat invoice paid through the API', () => {
  const cases = [
    // invoice, paid in, amount (as sent, as shown), what the payee receives, rate
    ['USD', 'USDC-sandbox', '100.00', '100', 100_000_000n, '1'],
    ['EUR', 'DAI-sandbox', '250.50', '250.5', 270_540_000_000_000_000_000n, '1.08'],
    ['JPY', 'USDC-sandbox', '15000', '15000', 100_500_000n, '0.0067'],
    ['USD', 'ETH-sandbox', '50', '50', 25_000_000_000_000_000n, '0.0005'],
  ] as const;
  for (const [invoice, token, amount, shown, received, rate] of cases) {
    it(`moves exactly the converted amount for ${invoice} paid in ${token}, and the request is paid`, async () => {
      const payee = accountOf(
        chain,
        4 + cases.findIndex((c) => c[0] === invoice && c[1] === token),
      ).address;
      const requestId = await createFiatRequest(invoice, token, amount, payee);
      const before = await balance(token, payee);
      const metadata = await pay(requestId);
      expect(metadata).toMatchObject({ conversionRate: rate, maxRateTimespan: 172_800 });
      expect((await balance(token, payee)) - before).toBe(received);

      const body = await status(requestId);
      expect(body).toMatchObject({
        hasBeenPaid: true,
        status: 'paid',
        invoiceCurrency: invoice,
        paymentCurrency: token,
        expectedAmount: shown,
        totalAmountPaid: shown,
        conversionRate: rate,
        rateSource: 'chainlink',
      });
      expect(body.payments).toEqual([
        expect.objectContaining({
          type: 'conversion',
          conversionRateSource: rate,
          rateProvider: 'chainlink',
        }),
      ]);
    });
  }
});

/** The payment event itself, not its `.client_id` copy. */
const plain = (body: Record<string, unknown>) => !String(body.event).endsWith('.client_id');
/** What was delivered about one request: earlier tests' events go out with the first run. */
const about = (requestId: string) => (received: { body: Record<string, unknown> }[]) =>
  received.map((r) => r.body).filter((body) => plain(body) && body.requestId === requestId);

describe('a fiat invoice paid in two parts', () => {
  it('sends payment.partial then payment.confirmed in fiat, with what the wallet paid', async () => {
    const payee = accountOf(chain, 9).address;
    const requestId = await createFiatRequest('EUR', 'USDC-sandbox', '20', payee);
    await pay(requestId, '5.50');
    expect(await dispatcher.runOnce()).toBeGreaterThan(0);
    const partial = about(requestId)(await receiver.waitFor(2));
    expect(partial).toEqual([
      expect.objectContaining({
        event: 'payment.partial',
        requestId,
        amount: '5.5',
        totalAmountPaid: '5.5',
        expectedAmount: '20',
        currency: 'EUR',
        paymentCurrency: 'USDC-sandbox',
        paymentAmount: '5.94',
        conversionRate: '1.08',
        rateSource: 'chainlink',
        amountInUsd: '5.94',
      }),
    ]);
    const halfway = await status(requestId);
    expect(halfway).toMatchObject({
      status: 'partially_paid',
      conversionRate: '1.08',
      amountInUsd: '21.60',
      conversionBreakdown: {
        paidAmount: '5.5',
        paidAmountInUsd: '5.94',
        remainingAmount: '14.5',
        remainingAmountInUsd: '15.66',
        payments: [
          { amount: '5.5', amountInUsd: '5.94', conversionRate: '1.08', rateSource: 'chainlink' },
        ],
      },
    });

    receiver.received.length = 0;
    await pay(requestId);
    await dispatcher.runOnce();
    const confirmed = about(requestId)(await receiver.waitFor(2));
    expect(confirmed).toEqual([
      expect.objectContaining({
        event: 'payment.confirmed',
        amount: '14.5',
        totalAmountPaid: '20',
        expectedAmount: '20',
        paymentAmount: '15.66',
      }),
    ]);
    const paid = await status(requestId);
    expect(paid).toMatchObject({
      hasBeenPaid: true,
      // Two payments: no single rate (as the reference answers).
      conversionRate: null,
      conversionBreakdown: { paidAmount: '20', remainingAmount: '0', paidAmountInUsd: '21.60' },
    });
    expect(paid.conversionBreakdown.payments).toHaveLength(2);

    // The payments search finds them as conversions, not as direct payments.
    const search = async (type: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/v2/payments?requestId=${requestId}&type=${type}`,
          headers: headers(),
        })
      ).json().payments;
    expect(await search('conversion')).toHaveLength(2);
    expect(await search('direct')).toEqual([]);
  });
});

describe('a fiat invoice whose payment a reorganisation takes back', () => {
  it('owes the same fiat amount again, and is paid again by the new chain', async () => {
    const payee = accountOf(chain, 10).address;
    const requestId = await createFiatRequest('JPY', 'USDC-sandbox', '3000', payee);
    await pay(requestId, '1000');
    const forkPoint = await chain.snapshot();
    await pay(requestId);
    expect(await status(requestId)).toMatchObject({ status: 'paid', totalAmountPaid: '3000' });

    // The block holding the second payment is replaced by longer, empty ones.
    await chain.revert(forkPoint);
    for (let i = 0; i < 4; i++) await chain.provider.request({ method: 'evm_mine' } as never);
    expect(await indexer.tick()).toMatchObject({ rolledBack: 1 });
    expect(await status(requestId)).toMatchObject({
      status: 'partially_paid',
      totalAmountPaid: '1000',
      conversionBreakdown: { paidAmount: '1000', remainingAmount: '2000' },
    });
    await pay(requestId);
    expect(await status(requestId)).toMatchObject({ status: 'paid', totalAmountPaid: '3000' });
  });
});

describe('a payout written in fiat', () => {
  it('answers the conversion calldata at once, and the payee gets the converted amount', async () => {
    const payee = accountOf(chain, 11).address;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/payouts',
      headers: headers(),
      payload: {
        payee,
        amount: '40',
        invoiceCurrency: 'GBP',
        paymentCurrency: 'USDT-sandbox',
        payerWallet: payer().address,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    // 1 GBP = 1.27 USD = 1.27 USDT: 50.8 USDT, and the proxy may take 2 % more.
    expect(body.metadata).toMatchObject({
      requiredAmount: '50.8',
      maxToSpend: '51.816',
      conversionRate: '1.27',
    });
    const before = await balance('USDT-sandbox', payee);
    await sendAndDetect(body.transactions);
    expect((await balance('USDT-sandbox', payee)) - before).toBe(50_800_000n);
    expect(await status(body.requestId)).toMatchObject({
      status: 'paid',
      invoiceCurrency: 'GBP',
      totalAmountPaid: '40',
    });
  });
});
