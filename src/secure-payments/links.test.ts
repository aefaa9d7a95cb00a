import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  apiKey,
  calldata,
  createLink,
  DAY_MS,
  destination,
  get,
  type Headers,
  pay,
  rival,
  setLinkStatus,
  setupSecurePaymentsApp,
  shop,
  t,
  UNKNOWN_TOKEN,
} from '../../test/secure-payments.ts';
import { requests } from '../db/schema.ts';

/**
 * Links that can no longer be paid (expired, completed, invalidated, blocked), over HTTP on
 * the real app: the display, `/pay` and `/calldata` refuse them alike.
 */

setupSecurePaymentsApp();

describe('links that can no longer be paid: GET, /pay and /calldata alike', () => {
  const expired = {
    statusCode: 403,
    error: 'Forbidden',
    message: 'Secure payment has expired',
    code: 'secure_payment_expired',
  };

  async function allThree(token: string, headers: Headers = apiKey(shop)) {
    return [
      await get(`/v2/secure-payments/${token}`, headers),
      await pay(token, {}, headers),
      await calldata(token, {}, headers),
    ];
  }

  it('stays payable until 7 days after creation, then answers 403 expired', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    t.clock.advance(7 * DAY_MS - 1);
    for (const res of await allThree(link.token)) expect(res.statusCode, res.body).toBe(200);
    t.clock.advance(2);
    for (const res of await allThree(link.token)) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toEqual(expired);
    }
  });

  it('answers 409 with each request’s state once completed', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [
      { destinationId: dest.destinationId, amount: '1' },
      { destinationId: dest.destinationId, amount: '2' },
    ]);
    await setLinkStatus(link.token, { status: 'completed', completedAt: t.clock.now() });
    await t.db
      .update(requests)
      .set({ status: 'paid' })
      .where(eq(requests.requestId, link.requestIds[0] ?? ''));
    for (const res of await allThree(link.token)) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toEqual({
        statusCode: 409,
        error: 'Conflict',
        message: 'Secure payment has already been completed',
        code: 'secure_payment_completed',
        status: 'completed',
        branding: null,
        network: 'base',
        redirectUrl: null,
        redirectLabel: 'Go Back and Close',
        // Ours, for the payer's receipt: what each request was for; no payment recorded here.
        reference: null,
        // A link of two requests is a batch: it carries no fee plan.
        feePlan: null,
        paidAt: null,
        requestStatuses: [
          {
            requestId: link.requestIds[0],
            hasBeenPaid: true,
            txHash: null,
            payee: dest.walletAddress,
            amount: '1',
            currency: 'USDC-base',
            paidAt: null,
          },
          {
            requestId: link.requestIds[1],
            hasBeenPaid: false,
            txHash: null,
            payee: dest.walletAddress,
            amount: '2',
            currency: 'USDC-base',
            paidAt: null,
          },
        ],
        feeLegs: [],
      });
    }
  });

  it('answers 409, not 403, for a completed link past its expiry', async () => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    await setLinkStatus(link.token, { status: 'completed', completedAt: t.clock.now() });
    t.clock.advance(8 * DAY_MS);
    for (const res of await allThree(link.token)) expect(res.statusCode, res.body).toBe(409);
  });

  it.each([
    ['invalidated', 'Secure payment is no longer valid', 'secure_payment_invalidated'],
    [
      'compliance_failed',
      'Secure payment was blocked by compliance screening',
      'secure_payment_compliance_failed',
    ],
  ] as const)('answers 403 for an %s link', async (status, message, code) => {
    const dest = await destination(shop);
    const link = await createLink(shop, [{ destinationId: dest.destinationId, amount: '1' }]);
    await setLinkStatus(link.token, { status });
    for (const res of await allThree(link.token)) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toEqual({ statusCode: 403, error: 'Forbidden', message, code });
    }
  });

  it('answers 404 on /pay and /calldata for an unknown token and another account’s token', async () => {
    const theirs = await createLink(rival, [
      { destinationId: (await destination(rival)).destinationId, amount: '1' },
    ]);
    for (const token of [UNKNOWN_TOKEN, theirs.token]) {
      for (const res of [await pay(token, {}), await calldata(token, {})]) {
        expect(res.statusCode, res.body).toBe(404);
        expect(res.json()).toMatchObject({ message: 'Secure payment not found' });
      }
    }
  });
});
