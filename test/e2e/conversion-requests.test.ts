import { type Address, custom, encodeFunctionData, formatUnits, getAddress, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import { batchPaymentsAbi, erc20Abi } from '../../src/payments/abis.ts';
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
  indexer = testIndexer(t, { network: 'sandbox', confirmations: 1 });
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
  await chain.provider.request({ method: 'evm_mine' });
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
      // What the payee got, in the payment currency (no fee here: paid is the same), what
      // it counted for in the invoice currency, and nothing beyond what was owed.
      const symbol = token.split('-')[0];
      const decimals = token.startsWith('USDC') ? 6 : 18;
      expect(body.payments).toEqual([
        expect.objectContaining({
          type: 'conversion',
          amount: shown,
          currency: invoice,
          conversionRateSource: rate,
          rateProvider: 'chainlink',
          paidAmount: formatUnits(received, decimals),
          paidCurrency: symbol,
          receivedAmount: formatUnits(received, decimals),
          receivedCurrency: symbol,
          receivedNetwork: 'sandbox',
          excessAmount: null,
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
    for (let i = 0; i < 4; i++) await chain.provider.request({ method: 'evm_mine' });
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

// What a fresh-eyes review found, each fixed with its test.

/**
 * BatchConversionPayments (the sandbox's `batchPayments` contract) pays conversion requests
 * (paymentNetworkId 0, through Erc20ConversionProxy) and plain ERC20 requests (2, through
 * ERC20FeeProxy) in one transaction. Detection keys each TransferWithConversionAndReference by
 * transaction and reference only, so every TransferWithReferenceAndFee of that reference in
 * the transaction borrows it.
 */
describe('one transaction holding a conversion and other transfers of the same reference', () => {
  const details = {
    recipient: '' as Address,
    requestAmount: 0n,
    path: [] as Address[],
    paymentReference: '0x' as `0x${string}`,
    feeAmount: 0n,
    maxToSpend: 0n,
    maxRateTimespan: 0n,
  };
  async function batchFromPayer(
    metaDetails: { paymentNetworkId: bigint; requestDetails: (typeof details)[] }[],
  ) {
    const batch = getAddress(t.chains.contracts('sandbox').batchPayments as string);
    const usdc = getAddress(t.chains.currency('USDC-sandbox')?.address as string);
    const sent: EvmTransaction[] = [
      {
        to: usdc,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [batch, 10n ** 12n],
        }),
        value: '0x0',
        chainId: 31337,
      },
      {
        to: batch,
        data: encodeFunctionData({
          abi: batchPaymentsAbi,
          functionName: 'batchPayments',
          args: [metaDetails, [], payer().address],
        }),
        value: '0x0',
        chainId: 31337,
      },
    ];
    await sendAll(chain, payer(), sent);
    await chain.provider.request({ method: 'evm_mine' });
    await indexer.tick();
  }
  const eurToUsdc = () => [
    t.chains.currency('EUR')?.hash as Address,
    t.chains.currency('USD')?.hash as Address,
    getAddress(t.chains.currency('USDC-sandbox')?.address as string),
  ];
  async function reference(requestId: string) {
    return (await status(requestId)).paymentReference as `0x${string}`;
  }

  it('credits a €100 invoice €10, not €100, for a €10 conversion and nine 0.000001 USDC transfers of its reference', async () => {
    const payee = accountOf(chain, 1).address;
    const requestId = await createFiatRequest('EUR', 'USDC-sandbox', '100', payee);
    const paymentReference = await reference(requestId);
    const before = await balance('USDC-sandbox', payee);
    await batchFromPayer([
      {
        paymentNetworkId: 0n,
        requestDetails: [
          {
            ...details,
            recipient: payee,
            requestAmount: 10n * 10n ** 8n, // €10.00 in the proxies' 8 decimals
            path: eurToUsdc(),
            paymentReference,
            maxToSpend: 11_000_000n,
          },
        ],
      },
      {
        paymentNetworkId: 2n,
        requestDetails: Array(9).fill({
          ...details,
          recipient: payee,
          requestAmount: 1n, // one base unit of USDC, no conversion
          path: [getAddress(t.chains.currency('USDC-sandbox')?.address as string)],
          paymentReference,
        }),
      },
    ]);
    // The payee got 10.8 USDC (€10) and 9 base units: the invoice is not paid.
    expect((await balance('USDC-sandbox', payee)) - before).toBe(10_800_009n);
    const body = await status(requestId);
    expect(body).toMatchObject({
      status: 'partially_paid',
      hasBeenPaid: false,
      totalAmountPaid: '10',
      conversionBreakdown: { paidAmount: '10', remainingAmount: '90' },
    });
    // The plain transfers are not conversion payments of a EUR invoice.
    expect(body.payments).toHaveLength(1);
  });

  it('counts two conversions of one reference in one transaction for their own amounts (€5 + €20 = €25)', async () => {
    const payee = accountOf(chain, 2).address;
    const requestId = await createFiatRequest('EUR', 'USDC-sandbox', '100', payee);
    const paymentReference = await reference(requestId);
    const conversion = (euros: bigint) => ({
      ...details,
      recipient: payee,
      requestAmount: euros * 10n ** 8n,
      path: eurToUsdc(),
      paymentReference,
      maxToSpend: euros * 1_100_000n,
    });
    await batchFromPayer([
      { paymentNetworkId: 0n, requestDetails: [conversion(5n), conversion(20n)] },
    ]);
    const body = await status(requestId);
    expect(body.payments.map((p: { amount: string }) => p.amount).sort()).toEqual(['20', '5']);
    expect(body).toMatchObject({ status: 'partially_paid', totalAmountPaid: '25' });
  });
});

describe('a fiat amount whose 8-decimal form does not fit a uint256', () => {
  it('is refused with a 400, not answered 502 chain_rpc_failed on every /pay', async () => {
    // 10^72 USD is 10^74 cents (fits 2^256 - 1) but 10^80 in the proxies' 8 decimals (does not).
    const amount = `1${'0'.repeat(72)}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: headers(),
      payload: {
        amount,
        invoiceCurrency: 'USD',
        paymentCurrency: 'USDC-sandbox',
        payee: accountOf(chain, 1).address,
      },
    });
    if (res.statusCode === 400) return; // refused at creation: fine
    expect(res.statusCode, res.body).toBe(201);
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${res.json().requestId}/pay?wallet=${payer().address}`,
      headers: headers(),
    });
    // The chain answered; the amount is what cannot be paid. A 502 tells the client to retry.
    expect(pay.statusCode, pay.body).toBe(400);
  });
});

describe('/pay of a fiat request from a wallet with no native currency for gas', () => {
  for (const token of ['USDC-sandbox', 'ETH-sandbox']) {
    it(`says hasEnoughGas: false, as /pay of a ${token} request does`, async () => {
      const empty = privateKeyToAccount(generatePrivateKey()).address;
      const requestId = await createFiatRequest('EUR', token, '10', accountOf(chain, 1).address);
      const res = await t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}/pay?wallet=${empty}`,
        headers: headers(),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().metadata).toMatchObject({ hasEnoughBalance: false, hasEnoughGas: false });
    });
  }
});
