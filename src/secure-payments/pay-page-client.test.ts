import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  browser,
  calldata,
  createLink,
  destination,
  get,
  type Headers,
  PAY_URL,
  pay,
  rival,
  setupSecurePaymentsApp,
  shop,
  t,
} from '../../test/secure-payments.ts';
import { ensurePayPageClientId } from '../pay-page/client-id.ts';

/**
 * The hosted pay page's own client ID over HTTP: it reads and pays any account's link by its
 * token, from PAY_URL's origin only, and is refused everywhere else.
 */

setupSecurePaymentsApp();

const PAY_ORIGIN = new URL(PAY_URL).origin;
let page: Headers;

beforeAll(async () => {
  // The app made it when it started; asking again returns the same one.
  page = { 'x-client-id': await ensurePayPageClientId(t.db, PAY_URL), origin: PAY_ORIGIN };
});

async function linkOf(tenant: typeof shop) {
  const dest = await destination(tenant);
  return createLink(tenant, [{ destinationId: dest.destinationId, amount: '3' }]);
}

describe('the pay page’s client ID', () => {
  it('reads and pays any account’s link by its token, granting PAY_URL’s origin', async () => {
    for (const tenant of [shop, rival]) {
      const link = await linkOf(tenant);
      const shown = await get(`/v2/secure-payments/${link.token}`, page);
      expect(shown.statusCode, shown.body).toBe(200);
      expect(shown.json()).toMatchObject({ token: link.token, requestIds: link.requestIds });
      expect(shown.headers['access-control-allow-origin']).toBe(PAY_ORIGIN);
      const steps = await pay(link.token, {}, page);
      expect(steps.statusCode, steps.body).toBe(200);
      expect(steps.headers['access-control-allow-origin']).toBe(PAY_ORIGIN);
      expect((await calldata(link.token, {}, page)).statusCode).toBe(200);
    }
  });

  it('works from PAY_URL’s origin only', async () => {
    const link = await linkOf(shop);
    const res = await get(`/v2/secure-payments/${link.token}`, {
      ...page,
      origin: 'https://shop.example',
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('origin_not_allowed');
  });

  it.each([
    ['creating a link', 'POST', '/v2/secure-payments'],
    ['reading a request', 'GET', '/v2/request/01abc'],
    ['listing currencies', 'GET', '/v2/currencies'],
  ])('is refused for anything else (%s)', async (_name, method, url) => {
    const res = await t.app.inject({
      method: method as 'GET' | 'POST',
      url,
      headers: page,
      ...(method === 'POST' && { payload: { requests: [] } }),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      statusCode: 403,
      message: 'The pay page’s client ID only reads and pays links by their token',
      error: 'Forbidden',
      code: 'credential_not_accepted',
    });
  });

  it('leaves ordinary client IDs to their own account’s links', async () => {
    const link = await linkOf(shop);
    for (const headers of [browser(rival), apiKey(rival)]) {
      const res = await get(`/v2/secure-payments/${link.token}`, headers);
      expect(res.statusCode).toBe(404);
      expect((await pay(link.token, {}, headers)).statusCode).toBe(404);
    }
    expect((await get(`/v2/secure-payments/${link.token}`, browser(shop))).statusCode).toBe(200);
  });
});
