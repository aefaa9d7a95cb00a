import { describe, expect, it } from 'vitest';
import { SHOP_ORIGIN } from '../../test/fixtures.ts';
import {
  apiKey,
  created,
  createRequest,
  setupRequestsApp,
  t,
  tenantA,
  wallet,
} from '../../test/requests.ts';

/**
 * What real clients send beyond what a route names, handled as the reference API does
 * (docs/architecture.md, "Unknown input"): extra headers (`x-platform-id`) and query parameters
 * are ignored, unknown body fields are dropped, except in the one body the reference's schema
 * closes (`POST /v2/secure-payments/multicall-payouts`), which refuses them.
 */

setupRequestsApp();

const body = {
  amount: '5',
  invoiceCurrency: 'USDC-base',
  paymentCurrency: 'USDC-base',
};

describe('input beyond what a route names', () => {
  it('ignores extra headers such as x-platform-id', async () => {
    const headers = { ...apiKey(tenantA), 'x-platform-id': 'easy-invoice' };
    const res = await createRequest({ ...body, payee: wallet(1).address }, headers);
    expect(res.statusCode, res.body).toBe(201);
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${res.json().requestId}/pay`,
      headers,
    });
    expect(pay.statusCode, pay.body).toBe(200);
    // From a browser too: its client ID, its Origin, and the header.
    const fromBrowser = await createRequest(
      { ...body, payee: wallet(1).address },
      { 'x-client-id': tenantA.browserClientId, origin: SHOP_ORIGIN, 'x-platform-id': 'shop' },
    );
    expect(fromBrowser.statusCode, fromBrowser.body).toBe(201);
    expect(fromBrowser.headers['access-control-allow-origin']).toBe(SHOP_ORIGIN);
  });

  it('ignores unknown query parameters: the same answer as without them', async () => {
    const { requestId } = await created();
    const get = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `/v2/request/${requestId}/pay${query}`,
        headers: apiKey(tenantA),
      });
    const plain = await get(`?wallet=${wallet(2).address}`);
    const extra = await get(`?wallet=${wallet(2).address}&utm_source=mail&platform=x`);
    expect(extra.statusCode, extra.body).toBe(200);
    expect(extra.json()).toEqual(plain.json());
  });

  it('drops unknown body fields where the reference’s schema leaves the body open', async () => {
    const res = await createRequest({
      ...body,
      payee: wallet(1).address,
      platformId: 'request-commerce',
      metadata: { orderId: 7 },
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('refuses them where it closes the body (multicall payouts), writing nothing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments/multicall-payouts',
      headers: apiKey(tenantA),
      payload: { childTokens: ['a', 'b'], platformId: 'x' },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      message: 'Validation failed',
      errors: [{ field: 'platformId', message: 'is not allowed' }],
    });
  });
});
