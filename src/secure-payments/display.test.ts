import { describe, expect, it } from 'vitest';
import {
  apiKey,
  BASE_DAI,
  BASE_USDC,
  backend,
  createLink,
  destination,
  get,
  rival,
  setupSecurePaymentsApp,
  shop,
  t,
  UNKNOWN_TOKEN,
} from '../../test/secure-payments.ts';
import { NATIVE_TOKEN_ADDRESS } from '../destinations/destination-id.ts';
import { LINK_LIFETIME_MS } from './insert-link.ts';

/** `GET /v2/secure-payments/{token}` over HTTP on the real app: what the pay page shows. */

setupSecurePaymentsApp();

describe('GET /v2/secure-payments/{token}: the pay page’s view', () => {
  it('shows a single-request link', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '12.50' }], {
      reference: 'order-42',
      payerIdentifier: 'customer-7',
      redirectUrl: 'https://shop.example/thanks',
      redirectLabel: 'Back to the shop',
    });
    const res = await get(`/v2/secure-payments/${link.token}`, apiKey(shop));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      paymentType: 'single',
      status: 'pending',
      token: link.token,
      redirectUrl: 'https://shop.example/thanks',
      redirectLabel: 'Back to the shop',
      branding: null,
      requestIds: link.requestIds,
      network: 'base',
      reference: 'order-42',
      feePlan: expect.objectContaining({ grossAmountUsd: '12.5', fees: [] }),
      expiresAt: new Date(t.clock.now().getTime() + LINK_LIFETIME_MS).toISOString(),
      payee: dest.walletAddress,
      amount: '12.5',
      paymentCurrency: 'USDC-base',
      isNativeCurrency: false,
      destination: {
        destinationId: dest.destinationId,
        payeeAddress: dest.walletAddress,
        tokenAddress: BASE_USDC,
        walletAddress: dest.walletAddress,
        network: 'base',
        isMasked: false,
      },
    });
  });

  it('shows a batch link index-aligned, with the default redirect label', async () => {
    const usdc = await destination(shop);
    const dai = await destination(shop, { tokenAddress: BASE_DAI });
    const eth = await destination(shop, { tokenAddress: NATIVE_TOKEN_ADDRESS });
    const link = await createLink(shop, [
      { destinationId: usdc.destinationId, amount: '10' },
      { destinationId: dai.destinationId, amount: '0.5' },
      { destinationId: eth.destinationId, amount: '0.25' },
    ]);
    const res = await get(`/v2/secure-payments/${link.token}`, backend(shop));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      paymentType: 'batch',
      status: 'pending',
      token: link.token,
      redirectUrl: null,
      redirectLabel: 'Go Back and Close',
      branding: null,
      requestIds: link.requestIds,
      network: 'base',
      reference: null,
      feePlan: null,
      payees: [usdc.walletAddress, dai.walletAddress, eth.walletAddress],
      amounts: ['10', '0.5', '0.25'],
      paymentCurrencies: ['USDC-base', 'DAI-base', 'ETH-base'],
      isNativeCurrency: [false, false, true],
    });
    for (const single of ['payee', 'amount', 'paymentCurrency', 'destination']) {
      expect(body).not.toHaveProperty(single);
    }
    expect(body.destinations).toEqual([
      {
        destinationId: usdc.destinationId,
        payeeAddress: usdc.walletAddress,
        tokenAddress: BASE_USDC,
        walletAddress: usdc.walletAddress,
        network: 'base',
        isMasked: false,
      },
      {
        destinationId: dai.destinationId,
        payeeAddress: dai.walletAddress,
        tokenAddress: BASE_DAI,
        walletAddress: dai.walletAddress,
        network: 'base',
        isMasked: false,
      },
      expect.objectContaining({
        destinationId: eth.destinationId,
        payeeAddress: eth.walletAddress,
        walletAddress: eth.walletAddress,
        network: 'base',
        isMasked: false,
      }),
    ]);
  });

  it('uses "Go Back and Close" when a single link has a redirectUrl but no label', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }], {
      redirectUrl: 'https://shop.example/back',
    });
    const res = await get(`/v2/secure-payments/${link.token}`, apiKey(shop));
    expect(res.json()).toMatchObject({
      redirectUrl: 'https://shop.example/back',
      redirectLabel: 'Go Back and Close',
    });
  });

  it('finds a link by its token in lower case too', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    const res = await get(`/v2/secure-payments/${link.token.toLowerCase()}`, apiKey(shop));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().token).toBe(link.token);
  });

  it('answers 404 for an unknown token and for another account’s token', async () => {
    const theirs = await createLink(rival, [
      { destinationId: (await destination(rival)).destinationId, amount: '1' },
    ]);
    for (const [token, headers] of [
      [UNKNOWN_TOKEN, apiKey(shop)],
      [theirs.token, apiKey(shop)],
      [theirs.token, backend(shop)],
    ] as const) {
      const res = await get(`/v2/secure-payments/${token}`, headers);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'Secure payment not found',
        code: 'secure_payment_not_found',
      });
    }
    const own = await get(`/v2/secure-payments/${theirs.token}`, apiKey(rival));
    expect(own.statusCode).toBe(200);
  });

  it('answers 400 for a token that is not 26 letters and digits', async () => {
    for (const token of ['short', `${UNKNOWN_TOKEN}0`, '01KAAAAAAAAAAAAAAAAAAAAA-A']) {
      const res = await get(`/v2/secure-payments/${token}`, apiKey(shop));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toBe('Validation failed');
    }
  });
});
