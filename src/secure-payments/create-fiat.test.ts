import { describe, expect, it } from 'vitest';
import {
  apiKey,
  BASE_DAI,
  backend,
  badRequest,
  create,
  createLink,
  destination,
  expectRefused,
  get,
  requestRows,
  rpcCalls,
  setupSecurePaymentsApp,
  shop,
  TRON_USDT,
  TRON_WALLET,
  validationFailed,
} from '../../test/secure-payments.ts';
import { TRON_CHAIN_ID } from '../chains/networks.ts';

/**
 * Links written in fiat (`requests[].invoiceCurrency`, ours): the request they make (in the
 * fiat's base units, paid in the destination's token), what the pay page's view says of them,
 * and the routes and inputs refused with nothing written. Base's feeds reach USDC from USD
 * only (contracts.md §3.3).
 */

setupSecurePaymentsApp();

describe('POST /v2/secure-payments with invoiceCurrency', () => {
  it('writes a conversion request in the fiat’s cents, paid in the destination’s token', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: dest.destinationId, amount: '25.50', invoiceCurrency: 'USD' },
    ]);
    const [row] = await requestRows(link.requestIds);
    expect(row).toMatchObject({
      network: 'base',
      invoiceCurrency: 'USD',
      paymentCurrency: 'USDC-base',
      expectedAmount: 2_550n,
      payee: dest.walletAddress,
    });
  });

  it('takes the fiat code in any case, and a client ID’s credentials', async () => {
    const dest = await destination(shop);
    const res = await create(backend(shop), {
      requests: [{ destinationId: dest.destinationId, amount: '3', invoiceCurrency: 'usd' }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await requestRows(res.json().requestIds);
    expect(row).toMatchObject({ invoiceCurrency: 'USD', expectedAmount: 300n });
  });

  it('refuses more decimals than the fiat has, naming the item', async () => {
    const dest = await destination(shop);
    await expectRefused(
      apiKey(shop),
      {
        requests: [{ destinationId: dest.destinationId, amount: '1.005', invoiceCurrency: 'USD' }],
      },
      400,
      validationFailed([
        { field: 'requests[0].amount', message: 'must have at most 2 decimal places' },
      ]),
    );
  });

  it('refuses a fiat amount past what the proxies can convert, as a request does', async () => {
    const dest = await destination(shop);
    const most = `1${'0'.repeat(30)}`;
    // Taken, every /pay of it would fail at the proxy's read, counted against the network.
    await expectRefused(
      apiKey(shop),
      {
        requests: [
          { destinationId: dest.destinationId, amount: most, invoiceCurrency: 'USD' },
          {
            destinationId: dest.destinationId,
            amount: `1${'0'.repeat(70)}`,
            invoiceCurrency: 'USD',
          },
        ],
      },
      400,
      validationFailed([
        {
          field: 'requests[1].amount',
          message: `must be at most ${most} for an invoice in USD`,
        },
      ]),
    );
  });

  it('refuses an invoiceCurrency that is not a fiat code or the destination’s token', async () => {
    const dest = await destination(shop);
    for (const code of ['DAI-base', 'XYZ']) {
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId: dest.destinationId, amount: '5', invoiceCurrency: code }] },
        400,
        validationFailed([
          {
            field: 'requests[0].invoiceCurrency',
            message:
              'is not a fiat code (USD, EUR, GBP, CNY, JPY) or the destination’s token (USDC-base)',
          },
        ]),
      );
    }
  });

  it('answers conversion_route_unavailable where the network has no feed path', async () => {
    const usdc = await destination(shop);
    const dai = await destination(shop, { tokenAddress: BASE_DAI });
    const tron = await destination(shop, {
      walletAddress: TRON_WALLET,
      chainId: TRON_CHAIN_ID,
      tokenAddress: TRON_USDT,
    });
    const cases = [
      [usdc.destinationId, 'EUR', 'No conversion route from EUR to USDC-base on base'],
      [dai.destinationId, 'USD', 'No conversion route from USD to DAI-base on base'],
      [tron.destinationId, 'USD', 'No conversion route from USD to USDT-tron on tron'],
    ] as const;
    for (const [destinationId, invoiceCurrency, message] of cases) {
      await expectRefused(
        apiKey(shop),
        { requests: [{ destinationId, amount: '10', invoiceCurrency }] },
        400,
        badRequest(message, 'conversion_route_unavailable'),
      );
    }
  });

  it('takes a fiat request among several: the batch shows each in its own currency', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: dest.destinationId, amount: '10.5', invoiceCurrency: 'USD' },
      { destinationId: dest.destinationId, amount: '10' },
    ]);
    const body = (await get(`/v2/secure-payments/${link.token}`, apiKey(shop))).json();
    expect(body).toMatchObject({
      paymentType: 'batch',
      amounts: ['10.5', '10'],
      paymentCurrencies: ['USDC-base', 'USDC-base'],
      invoiceCurrencies: ['USD', 'USDC-base'],
    });
  });
});

describe('GET /v2/secure-payments/{token} of a fiat link', () => {
  it('shows the amount in the fiat’s decimals, with invoiceCurrency and invoiceAmount', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: dest.destinationId, amount: '1234.56', invoiceCurrency: 'USD' },
    ]);
    const calls = rpcCalls.length;
    const res = await get(`/v2/secure-payments/${link.token}`, apiKey(shop));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      paymentType: 'single',
      requestIds: link.requestIds,
      network: 'base',
      payee: dest.walletAddress,
      // 123456 cents, not 0.123456 USDC as the token's 6 decimals would read them.
      amount: '1234.56',
      paymentCurrency: 'USDC-base',
      isNativeCurrency: false,
      invoiceCurrency: 'USD',
      invoiceAmount: '1234.56',
    });
    // The view touches no chain: the crypto amount is /pay's quote.
    expect(rpcCalls.length).toBe(calls);
  });

  it('refuses to be paid from another chain, naming the fiat it is written in', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: dest.destinationId, amount: '5', invoiceCurrency: 'USD' },
    ]);
    const wallet = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const res = await get(
      `/v2/secure-payments/${link.token}/pay?wallet=${wallet}&chain=ARBITRUM&token=USDC`,
      apiKey(shop),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'crosschain_unavailable',
      message: 'Cross-chain payment needs a link in a token; this one is written in USD',
    });
  });

  it('gives no invoice fields on a link in the token itself', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '2' }]);
    const body = (await get(`/v2/secure-payments/${link.token}`, apiKey(shop))).json();
    expect(body.amount).toBe('2');
    expect(body).not.toHaveProperty('invoiceCurrency');
    expect(body).not.toHaveProperty('invoiceAmount');
  });
});
