import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { SHOP_ORIGIN } from '../../test/fixtures.ts';
import {
  apiKey,
  backendClient,
  created,
  createRequest,
  getRequest,
  setupRequestsApp,
  t,
  tenantA,
  validationErrors,
  wallet,
} from '../../test/requests.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { requests } from '../db/schema.ts';

/**
 * `POST /v2/request` over HTTP on the real app (a local EVM standing in for base): what it
 * creates, and the currencies, payees, amounts and fields it refuses.
 */

setupRequestsApp();

const TRON_PAYEE = 'TLEaY8XoqpBmndLsjcfThgdKLN1ssNuUcF';

describe('POST /v2/request', () => {
  it('creates a request: 201 with a 0x+16-hex payment reference and a 01+64-hex request id', async () => {
    const res = await createRequest({
      amount: '12.5',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['paymentReference', 'requestId']);
    expect(body.paymentReference).toMatch(/^0x[0-9a-f]{16}$/);
    expect(body.requestId).toMatch(/^01[0-9a-f]{64}$/);
  });

  it('gives every request its own id and payment reference', async () => {
    const first = await created();
    const second = await created();
    expect(second.requestId).not.toBe(first.requestId);
    expect(second.paymentReference).not.toBe(first.paymentReference);
  });

  it('accepts a client ID, a payer, a reference and customer info', async () => {
    const res = await createRequest(
      {
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: wallet(1).address,
        payer: wallet(2).address.toLowerCase(),
        reference: 'INV-42',
        customerInfo: {
          firstName: 'Ada',
          email: 'ada@example.com',
          address: { city: 'London', country: 'GB' },
        },
      },
      { 'x-client-id': tenantA.browserClientId, origin: SHOP_ORIGIN },
    );
    expect(res.statusCode, res.body).toBe(201);
    const read = (await getRequest(res.json().requestId)).json();
    expect(read).toMatchObject({
      payer: wallet(2).address,
      reference: 'INV-42',
      customerInfo: {
        firstName: 'Ada',
        email: 'ada@example.com',
        address: { city: 'London', country: 'GB' },
      },
    });
  });

  it('refuses an unknown paymentCurrency', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'NOPE-base',
      payee: wallet(1).address,
    });
    expect(res.json()).toMatchObject({ message: 'Validation failed', code: 'validation_failed' });
    expect(validationErrors(res)).toEqual([
      { field: 'paymentCurrency', message: 'is not a supported currency id' },
    ]);
  });

  it('refuses an unknown invoiceCurrency', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'XYZ',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
    });
    expect(validationErrors(res)).toEqual([
      { field: 'invoiceCurrency', message: 'is not a supported currency id or fiat code' },
    ]);
  });

  it('writes a fiat invoice in its own decimals, and refuses a crypto invoice as having no route', async () => {
    const create = (invoiceCurrency: string, amount: string, paymentCurrency = 'USDC-base') =>
      createRequest({ amount, invoiceCurrency, paymentCurrency, payee: wallet(1).address });
    const usd = await create('USD', '12.34');
    expect(usd.statusCode).toBe(201);
    const status = await getRequest(usd.json().requestId);
    expect(status.json()).toMatchObject({
      invoiceCurrency: 'USD',
      paymentCurrency: 'USDC-base',
      expectedAmount: '12.34',
      rateSource: 'chainlink',
      conversionRate: null,
      conversionBreakdown: null,
      amountInUsd: '12.34',
    });
    // Cents, not the token's 6 decimals; yen have none.
    expect(validationErrors(await create('USD', '12.345'))).toEqual([
      { field: 'amount', message: 'must have at most 2 decimal places' },
    ]);
    // Up to 10^30 whole units, what the proxies can convert; one cent more is refused.
    const most = `1${'0'.repeat(30)}`;
    expect((await create('USD', most)).statusCode).toBe(201);
    expect(validationErrors(await create('USD', `${most}.01`))).toEqual([
      { field: 'amount', message: `must be at most ${most} for an invoice in USD` },
    ]);
    expect((await create('JPY', '1500', 'USDC-mainnet')).statusCode).toBe(201);
    expect(validationErrors(await create('JPY', '1500.5', 'USDC-mainnet'))).toEqual([
      { field: 'amount', message: 'must have at most 0 decimal places' },
    ]);
    for (const [invoice, payment] of [
      ['DAI-base', 'USDC-base'],
      ['USDC-optimism', 'USDC-base'],
    ]) {
      const res = await create(invoice as string, '1', payment);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'conversion_route_unavailable',
        message: `No conversion route from ${invoice} to ${payment} on base`,
      });
    }
  });

  // contracts.md §3.3: which fiat reaches which token through Chainlink, network by network.
  const ROUTES: Record<string, { token: string; fiat: string[] }> = {
    mainnet: { token: 'USDC-mainnet', fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'] },
    'arbitrum-one': { token: 'USDC-arbitrum-one', fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'] },
    optimism: { token: 'USDC-optimism', fiat: ['USD', 'EUR', 'JPY'] },
    base: { token: 'USDC-base', fiat: ['USD'] },
    matic: { token: 'USDC-matic', fiat: ['USD', 'EUR', 'GBP', 'JPY', 'CNY'] },
    bsc: { token: 'USDC-bsc', fiat: ['USD', 'EUR', 'GBP', 'JPY'] },
    sepolia: { token: 'FAU-sepolia', fiat: ['USD', 'EUR', 'GBP'] },
    tron: { token: 'USDT-tron', fiat: [] },
  };
  for (const [network, { token, fiat }] of Object.entries(ROUTES)) {
    it(`accepts each fiat with a feed path and answers 400 naming the missing route for the rest on ${network}`, async () => {
      for (const code of ['USD', 'EUR', 'GBP', 'JPY', 'CNY']) {
        const res = await createRequest({
          amount: '10',
          invoiceCurrency: code,
          paymentCurrency: token,
          payee: network === 'tron' ? TRON_PAYEE : wallet(1).address,
        });
        if (fiat.includes(code)) {
          expect(res.statusCode, `${code} on ${network}: ${res.body}`).toBe(201);
          continue;
        }
        expect(res.statusCode, `${code} on ${network}`).toBe(400);
        expect(res.json()).toMatchObject({
          code: 'conversion_route_unavailable',
          message: `No conversion route from ${code} to ${token} on ${network}`,
        });
      }
    });
  }

  it('refuses a fiat paymentCurrency', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'USD',
      paymentCurrency: 'USD',
      payee: wallet(1).address,
    });
    expect(validationErrors(res)).toEqual([
      { field: 'paymentCurrency', message: 'is not a supported currency id' },
    ]);
  });

  it('requires a payee when the credential has no bound destination', async () => {
    const body = { amount: '1', invoiceCurrency: 'USDC-base', paymentCurrency: 'USDC-base' };
    for (const headers of [apiKey(tenantA), backendClient(tenantA)]) {
      const res = await createRequest(body, headers);
      expect(validationErrors(res)).toEqual([{ field: 'payee', message: 'is required' }]);
    }
  });

  it('refuses a payee of the wrong chain kind', async () => {
    const tronPayee = evmToTron(wallet(1).address);
    const onBase = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: tronPayee,
    });
    expect(validationErrors(onBase)).toEqual([
      { field: 'payee', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
    const onTron = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDT-tron',
      paymentCurrency: 'USDT-tron',
      payee: wallet(1).address,
    });
    expect(validationErrors(onTron)).toEqual([
      { field: 'payee', message: 'must be a Tron address (T…)' },
    ]);
    const tron = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDT-tron',
      paymentCurrency: 'USDT-tron',
      payee: tronPayee,
    });
    expect(tron.statusCode, tron.body).toBe(201);
  });

  it('refuses a malformed payee and payer', async () => {
    const payee = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: '0x1234',
    });
    expect(validationErrors(payee)).toEqual([
      { field: 'payee', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
    const payer = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
      payer: 'nobody',
    });
    expect(validationErrors(payer)).toEqual([
      { field: 'payer', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it.each([
    ['0', 'must be greater than 0'],
    ['0.000000', 'must be greater than 0'],
    ['-1', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['1e3', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    [' 1', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['01', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['1.', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['.5', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['', 'must be a decimal number such as 12.5 (no sign, exponent or spaces)'],
    ['1.0000001', 'must have at most 6 decimal places'],
    [`1${'0'.repeat(72)}`, 'is more than a token contract can move (2^256 - 1 base units)'],
  ])('refuses the USDC amount %j', async (amount, message) => {
    const res = await createRequest({
      amount,
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
    });
    expect(validationErrors(res)).toEqual([{ field: 'amount', message }]);
  });

  it('accepts as many decimals as the token has', async () => {
    const usdc = await created({ amount: '0.000001' });
    expect((await getRequest(usdc.requestId)).json().expectedAmount).toBe('0.000001');
    const dai = await created({
      amount: '1.000000000000000001',
      invoiceCurrency: 'DAI-base',
      paymentCurrency: 'DAI-base',
    });
    expect((await getRequest(dai.requestId)).json().expectedAmount).toBe('1.000000000000000001');
    // Trailing zeros beyond the token's decimals change nothing.
    const padded = await created({ amount: '2.50000000' });
    expect((await getRequest(padded.requestId)).json().expectedAmount).toBe('2.5');
  });

  it('refuses a body without amount, naming only that', async () => {
    const res = await createRequest({
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
      colour: 'blue',
    });
    expect(validationErrors(res)).toEqual([{ field: 'amount', message: 'is required' }]);
  });

  it('ignores unknown fields, at the top and inside customerInfo, and stores none of them', async () => {
    const res = await createRequest({
      amount: '1',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: wallet(1).address,
      colour: 'blue',
      customerInfo: { firstName: 'Ada', nickname: 'x' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await t.db
      .select({ customerInfo: requests.customerInfo })
      .from(requests)
      .where(eq(requests.requestId, res.json().requestId));
    expect(row?.customerInfo).toEqual({ firstName: 'Ada' });
  });

  it('answers 401 without credentials', async () => {
    const res = await createRequest({}, {});
    expect(res.statusCode).toBe(401);
  });
});
