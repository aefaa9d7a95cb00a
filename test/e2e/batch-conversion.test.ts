import { type Address, custom, getAddress, type Hex, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { setSandboxRate } from '../../src/sandbox/rates.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, sendAll } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { testIndexer } from '../workers.ts';

/**
 * Batches mixing fiat requests paid at the on-chain rate with plain ones, through
 * `POST /v2/payouts/batch`, on the sandbox chain's real BatchConversionPayments, conversion
 * proxies and ChainlinkConversionPath with mock feeds (1 USD = 1 USDC = 1 DAI, ETH 2,000 USD,
 * EUR 1.08, GBP 1.27, JPY 0.0067): the transactions sent as the payer's wallet sends them pay
 * every payee exactly what the rate gives, the payer keeps the margin, detection marks every
 * request paid in its own currency, and a rate moved against the payer past the margin reverts.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);

let chain: LocalChain;
let t: TestApp;
let tenant: Tenant;
let indexer: Indexer;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337, walletCount: 16 });
  t = await createTestApp({
    env: { SANDBOX: 'true' },
    transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
  });
  tenant = await createTenant(t.db);
  indexer = testIndexer(t, { network: 'sandbox', confirmations: 1 });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await chain?.close();
});

const wallet = (index: number) => accountOf(chain, index);

async function post(url: string, payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url, headers: { 'x-api-key': tenant.apiKey }, payload });
}

async function balance(currency: string, owner: Address): Promise<bigint> {
  if (currency === 'ETH-sandbox') return chain.client.getBalance({ address: owner });
  return chain.client.readContract({
    address: t.chains.currency(currency)?.address as Address,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** The answer's transactions as the wallet sends them: approvals, then the batch. */
function transactionsOf(body: {
  ERC20ApprovalTransactions: { data: Hex; to: Address; value: number }[];
  batchPaymentTransaction: { data: Hex; to: Address; value: { hex: Hex } };
}): EvmTransaction[] {
  return [
    ...body.ERC20ApprovalTransactions.map((tx) => ({
      to: tx.to,
      data: tx.data,
      value: `0x${tx.value.toString(16)}` as Hex,
      chainId: 31337,
    })),
    {
      to: body.batchPaymentTransaction.to,
      data: body.batchPaymentTransaction.data,
      value: body.batchPaymentTransaction.value.hex,
      chainId: 31337,
    },
  ];
}

/** What the payer spent of the native currency, gas left out. */
async function sendCountingGas(payer: number, transactions: EvmTransaction[]) {
  const hashes = await sendAll(chain, wallet(payer), transactions);
  let gas = 0n;
  for (const hash of hashes) {
    const receipt = await chain.client.getTransactionReceipt({ hash });
    gas += receipt.gasUsed * receipt.effectiveGasPrice;
  }
  return gas;
}

async function status(requestId: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: { 'x-api-key': tenant.apiKey },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** One block on top (the indexer records what is behind the head), then detection. */
async function detect() {
  await chain.provider.request({ method: 'evm_mine' });
  await indexer.tick();
}

describe('a batch of fiat and plain requests', () => {
  it('pays every payee exactly, returns the margin, and each request is paid in its own currency', async () => {
    const payer = 10;
    // invoice, paid in, amount, what the payee receives
    const items = [
      ['USD', 'USDC-sandbox', '100.00', 100_000_000n],
      ['EUR', 'USDC-sandbox', '250.50', 270_540_000n],
      ['USDC-sandbox', 'USDC-sandbox', '12.5', 12_500_000n],
      ['DAI-sandbox', 'DAI-sandbox', '3', 3_000_000_000_000_000_000n],
      ['USD', 'ETH-sandbox', '50', 25_000_000_000_000_000n],
    ] as const;
    const payees = items.map((_, i) => wallet(i + 1).address);
    const before = await Promise.all(
      items.map(([, token], i) => balance(token, payees[i] as Address)),
    );
    const spent = ['USDC-sandbox', 'DAI-sandbox', 'ETH-sandbox'] as const;
    const payerBefore = await Promise.all(spent.map((c) => balance(c, wallet(payer).address)));

    const res = await post('/v2/payouts/batch', {
      requests: items.map(([invoiceCurrency, paymentCurrency, amount], i) => ({
        payee: payees[i],
        amount,
        invoiceCurrency,
        paymentCurrency,
      })),
      payer: wallet(payer).address,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.batchPaymentTransaction.to).toBe(getAddress(chain.addresses.batchPayments));
    // One approval per token, each of the batch contract.
    expect(body.ERC20ApprovalTransactions).toHaveLength(2);
    expect(body.metadata).toMatchObject({
      hasEnoughBalance: true,
      hasEnoughGas: true,
      maxRateTimespan: 172_800,
      spending: [
        { paymentCurrencyId: 'USDC-sandbox', requiredAmount: '383.04', maxToSpend: '390.4508' },
        { paymentCurrencyId: 'DAI-sandbox', requiredAmount: '3', maxToSpend: '3' },
        { paymentCurrencyId: 'ETH-sandbox', requiredAmount: '0.025', maxToSpend: '0.0255' },
      ],
      conversions: [
        { invoiceCurrency: 'USD', paymentCurrencyId: 'USDC-sandbox', conversionRate: '1' },
        { invoiceCurrency: 'EUR', paymentCurrencyId: 'USDC-sandbox', conversionRate: '1.08' },
        { invoiceCurrency: 'USD', paymentCurrencyId: 'ETH-sandbox', conversionRate: '0.0005' },
      ],
    });

    const gas = await sendCountingGas(payer, transactionsOf(body));
    const after = await Promise.all(
      items.map(([, token], i) => balance(token, payees[i] as Address)),
    );
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual(items.map(([, , , base]) => base));
    // The payer spent what the rates gave, not the margins it allowed.
    const payerAfter = await Promise.all(spent.map((c) => balance(c, wallet(payer).address)));
    expect(payerBefore.map((b, i) => b - (payerAfter[i] ?? 0n))).toEqual([
      383_040_000n,
      3_000_000_000_000_000_000n,
      25_000_000_000_000_000n + gas,
    ]);

    await detect();
    const ids: string[] = body.requestIds;
    const paid = await Promise.all(ids.map(status));
    expect(
      paid.map((s) => [
        s.status,
        s.hasBeenPaid,
        s.invoiceCurrency,
        s.paymentCurrency,
        s.totalAmountPaid,
      ]),
    ).toEqual([
      ['paid', true, 'USD', 'USDC-sandbox', '100'],
      ['paid', true, 'EUR', 'USDC-sandbox', '250.5'],
      ['paid', true, 'USDC-sandbox', 'USDC-sandbox', '12.5'],
      ['paid', true, 'DAI-sandbox', 'DAI-sandbox', '3'],
      ['paid', true, 'USD', 'ETH-sandbox', '50'],
    ]);
    expect(paid.map((s) => s.payments[0]?.type)).toEqual([
      'conversion',
      'conversion',
      'direct',
      'direct',
      'conversion',
    ]);
  });

  it('pays existing fiat requests by id, with a plain one', async () => {
    const payer = 11;
    const made: string[] = [];
    const items = [
      ['JPY', 'DAI-sandbox', '15000', 100_500_000_000_000_000_000n],
      ['GBP', 'USDT-sandbox', '20', 25_400_000n],
      ['ETH-sandbox', 'ETH-sandbox', '0.01', 10_000_000_000_000_000n],
    ] as const;
    const payees = items.map((_, i) => wallet(i + 6).address);
    for (const [i, [invoiceCurrency, paymentCurrency, amount]] of items.entries()) {
      const res = await post('/v2/request', {
        payee: payees[i],
        amount,
        invoiceCurrency,
        paymentCurrency,
      });
      expect(res.statusCode, res.body).toBe(201);
      made.push(res.json().requestId);
    }
    const before = await Promise.all(
      items.map(([, token], i) => balance(token, payees[i] as Address)),
    );
    const res = await post('/v2/payouts/batch', { requestIds: made, payer: wallet(payer).address });
    expect(res.statusCode, res.body).toBe(201);
    await sendAll(chain, wallet(payer), transactionsOf(res.json()));
    const after = await Promise.all(
      items.map(([, token], i) => balance(token, payees[i] as Address)),
    );
    expect(after.map((a, i) => a - (before[i] ?? 0n))).toEqual(items.map(([, , , base]) => base));

    await detect();
    const paid = await Promise.all(made.map(status));
    expect(paid.map((s) => [s.status, s.expectedAmount, s.totalAmountPaid])).toEqual([
      ['paid', '15000', '15000'],
      ['paid', '20', '20'],
      ['paid', '0.01', '0.01'],
    ]);
  });
});

describe('a batch whose rate moved', () => {
  const usd = () => t.chains.currency('USD')?.hash as Address;
  const eur = () => t.chains.currency('EUR')?.hash as Address;
  const eth = () => t.chains.currency('ETH-sandbox')?.address as Address;

  async function quote(payer: number, items: readonly (readonly [string, string, string])[]) {
    const res = await post('/v2/payouts/batch', {
      requests: items.map(([invoiceCurrency, paymentCurrency, amount], i) => ({
        payee: wallet(i + 1).address,
        amount,
        invoiceCurrency,
        paymentCurrency,
      })),
      payer: wallet(payer).address,
    });
    expect(res.statusCode, res.body).toBe(201);
    return transactionsOf(res.json());
  }

  it('pays within the margin, and reverts past it, for tokens and the native currency', async () => {
    const snapshot = await chain.snapshot();
    try {
      const tokens = [
        ['EUR', 'USDC-sandbox', '40'],
        ['USDC-sandbox', 'USDC-sandbox', '5'],
      ] as const;
      const within = await quote(12, tokens);
      const past = await quote(13, tokens);
      // EUR at 1.09 USD: 0.9 % more USDC than quoted, inside the 2 % margin.
      await setSandboxRate(chain, { input: eur(), output: usd() }, 109_000_000n);
      await sendAll(chain, wallet(12), within);
      // EUR at 1.11 USD: 2.8 % more, past it: the proxy refuses to take more than maxToSpend.
      await setSandboxRate(chain, { input: eur(), output: usd() }, 111_000_000n);
      const [approval, batch] = past;
      if (!approval || !batch) throw new Error('an approval and the batch were expected');
      await sendAll(chain, wallet(13), [approval]);
      await expect(sendAll(chain, wallet(13), [batch])).rejects.toThrow(/revert/i);

      const native = await quote(14, [
        ['USD', 'ETH-sandbox', '30'],
        ['ETH-sandbox', 'ETH-sandbox', '0.001'],
      ]);
      // ETH at 1,940 USD: 3.1 % more ETH for the same dollars than the value carries.
      await setSandboxRate(chain, { input: eth(), output: usd() }, 194_000_000_000n);
      await expect(sendAll(chain, wallet(14), native)).rejects.toThrow(/revert/i);
    } finally {
      await chain.revert(snapshot);
    }
  });
});
