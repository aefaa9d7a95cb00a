import { describe, expect, it } from 'vitest';
import { payout, RECIPIENT } from '../../test/payouts.ts';
import {
  apiKey,
  createLink,
  destination,
  rival,
  setupSecurePaymentsApp,
  shop,
  t,
  validationFailed,
  wallet,
} from '../../test/secure-payments.ts';

/**
 * `GET /v2/request?securePaymentFlow=` over HTTP on the real app: the requests of payout links
 * (outgoing) apart from all others (incoming: links to get paid and requests made without a
 * link), as the CSV export tells them apart, paged within the flow.
 */

setupSecurePaymentsApp();

function list(query: string, headers = apiKey(shop)) {
  return t.app.inject({ method: 'GET', url: `/v2/request${query}`, headers });
}

async function listed(query: string, headers = apiKey(shop)): Promise<string[]> {
  const res = await list(query, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().requests.map((r: { requestId: string }) => r.requestId);
}

describe('GET /v2/request securePaymentFlow', () => {
  it('keeps the requests of payout links (outgoing) or all others (incoming), and both when absent', async () => {
    const target = await destination(shop);
    // Oldest first: an incoming link, a payout, a plain request, a payout, an incoming link.
    const link = await createLink(shop, [{ destinationId: target.destinationId, amount: '1' }]);
    const firstPayout = await payout();
    const plain = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: apiKey(shop),
      payload: {
        amount: '3',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: wallet(77),
      },
    });
    expect(plain.statusCode, plain.body).toBe(201);
    const secondPayout = await payout({ amount: '4' });
    const lastLink = await createLink(shop, [{ destinationId: target.destinationId, amount: '5' }]);
    // Another account's payout never shows.
    await payout({}, rival);

    const incoming = [...lastLink.requestIds, plain.json().requestId, ...link.requestIds];
    const outgoing = [...secondPayout.requestIds, ...firstPayout.requestIds];
    expect(await listed('?securePaymentFlow=incoming')).toEqual(incoming);
    expect(await listed('?securePaymentFlow=outgoing')).toEqual(outgoing);
    const all = await listed('');
    expect(all).toHaveLength(incoming.length + outgoing.length);
    expect(new Set(all)).toEqual(new Set([...incoming, ...outgoing]));

    // Pages count within the flow: offset and cursor both.
    expect(await listed('?securePaymentFlow=incoming&limit=1&offset=1')).toEqual([incoming[1]]);
    const first = await list('?securePaymentFlow=outgoing&limit=1');
    expect(first.json().pagination).toMatchObject({ hasMore: true });
    const next = await listed(
      `?securePaymentFlow=outgoing&limit=1&cursor=${first.json().pagination.nextCursor}`,
    );
    expect(next).toEqual([outgoing[1]]);

    // With the payee filter too: every payout pays RECIPIENT.
    expect(await listed(`?walletAddress=${RECIPIENT}&securePaymentFlow=outgoing`)).toEqual(
      outgoing,
    );
    expect(await listed(`?walletAddress=${RECIPIENT}&securePaymentFlow=incoming`)).toEqual([]);
  });

  it('refuses a flow that is neither', async () => {
    const res = await list('?securePaymentFlow=both');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject(
      validationFailed([{ field: 'securePaymentFlow', message: expect.any(String) }]),
    );
  });
});
