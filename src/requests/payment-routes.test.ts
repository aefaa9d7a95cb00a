import { describe, expect, it } from 'vitest';
import {
  apiKey,
  created,
  setupRequestsApp,
  t,
  tenantA,
  tenantB,
  validationErrors,
  wallet,
} from '../../test/requests.ts';
import { createClientId } from '../auth/client-ids.ts';
import { DIRECT_ROUTE_ID } from './payment-routes.ts';

/**
 * `GET /v2/request/{requestId}/routes` over HTTP on the real app: the one route this server
 * has, the direct payment on the request's network, in the shape easy-invoice reads (it shows
 * nothing to pay with until this answers, and asks `/pay` for the route it picks).
 */

setupRequestsApp();

function routes(requestId: string, query: Record<string, string>, headers = apiKey(tenantA)) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}/routes?${new URLSearchParams(query)}`,
    headers,
  });
}

describe('GET /v2/request/{requestId}/routes', () => {
  it('answers the direct route: the request’s token on its network, no fee', async () => {
    const { requestId } = await created({ amount: '12.5' });
    const res = await routes(requestId, { wallet: wallet(2).address });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      routes: [
        {
          id: DIRECT_ROUTE_ID,
          fee: 0,
          feeBreakdown: [],
          speed: 'FAST',
          price_impact: 0,
          chain: 'BASE',
          token: 'USDC',
        },
      ],
    });
  });

  it('carries a platform fee: its amount on top, its breakdown, and platformFee', async () => {
    const { requestId } = await created({ amount: '10' });
    const feeAddress = wallet(4).address;
    const res = await routes(requestId, {
      wallet: wallet(2).address,
      feePercentage: '2.5',
      feeAddress: feeAddress.toLowerCase(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      routes: [
        {
          id: DIRECT_ROUTE_ID,
          fee: 0.25,
          feeBreakdown: [
            {
              type: 'platform',
              stage: 'sending',
              amount: '0.25',
              currency: 'USDC',
              receiverAddress: feeAddress,
              network: 'base',
            },
          ],
          speed: 'FAST',
          price_impact: 0,
          chain: 'BASE',
          token: 'USDC',
        },
      ],
      platformFee: { percentage: 2.5, address: feeAddress },
    });
  });

  it('counts a fiat request’s fee in its fiat, and in USD when that is the fiat', async () => {
    const { requestId } = await created({ amount: '5', invoiceCurrency: 'USD' });
    const res = await routes(requestId, {
      wallet: wallet(2).address,
      feePercentage: '1',
      feeAddress: wallet(4).address,
    });
    expect(res.statusCode, res.body).toBe(200);
    const [route] = res.json().routes;
    expect(route).toMatchObject({ fee: 0.05, feeInUSD: 0.05, token: 'USDC', chain: 'BASE' });
    expect(route.feeBreakdown).toEqual([
      expect.objectContaining({ amount: '0.05', amountInUSD: '0.05', currency: 'USD' }),
    ]);
  });

  it('applies a client ID’s own fee, as /pay does', async () => {
    const client = await createClientId(t.db, {
      accountId: tenantA.accountId,
      label: 'Takes 1.5 %',
      allowedDomains: [],
      feePercentage: '1.5',
      feeAddress: wallet(4).address,
    });
    const { requestId } = await created({ amount: '10' });
    const res = await routes(
      requestId,
      { wallet: wallet(2).address, feePercentage: '5', feeAddress: wallet(3).address },
      { 'x-client-id': client.clientId },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().routes[0].fee).toBe(0.15);
    expect(res.json().platformFee).toEqual({ percentage: 1.5, address: wallet(4).address });
  });

  it('prices a partial amount', async () => {
    const { requestId } = await created({ amount: '10' });
    const res = await routes(requestId, {
      wallet: wallet(2).address,
      amount: '4',
      feePercentage: '10',
      feeAddress: wallet(4).address,
    });
    expect(res.json().routes[0].fee).toBe(0.4);
  });

  it('wants a wallet, and one of the request’s chain kind', async () => {
    const { requestId } = await created();
    const missing = await routes(requestId, {});
    expect(missing.statusCode).toBe(400);
    expect(validationErrors(await routes(requestId, { wallet: 'nobody' }))).toEqual([
      { field: 'wallet', message: 'must be an EVM address (0x followed by 40 hex digits)' },
    ]);
  });

  it('refuses what /pay refuses: an amount above what is due, half a fee', async () => {
    const { requestId } = await created({ amount: '10' });
    expect(
      validationErrors(await routes(requestId, { wallet: wallet(2).address, amount: '11' })),
    ).toEqual([{ field: 'amount', message: 'must not exceed what is still due (10)' }]);
    expect(
      validationErrors(await routes(requestId, { wallet: wallet(2).address, feePercentage: '1' })),
    ).toEqual([
      { field: 'feeAddress', message: 'feePercentage and feeAddress must be sent together' },
    ]);
  });

  it("answers 404 for another account's request", async () => {
    const { requestId } = await created();
    const res = await routes(requestId, { wallet: wallet(2).address }, apiKey(tenantB));
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('Request not found');
  });
});
