import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { requests } from '../db/schema.ts';

/**
 * `POST /v2/request/payment-intents/{id}`, which 0.31.0 removed and easy-invoice and
 * request-commerce still call after signing a cross-chain intent: a 410 that names what to
 * call instead, whatever they send, and nothing read or written.
 */

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
});
afterAll(() => t.close());

/** easy-invoice's body as its pay page builds it (the permit only when the token needed one). */
const SIGNED = {
  signedPaymentIntent: {
    signature: `0x${'ab'.repeat(65)}`,
    nonce: '1',
    deadline: '1893456000',
  },
  signedApprovalPermit: {
    signature: `0x${'cd'.repeat(65)}`,
    nonce: '0',
    deadline: '1893456000',
  },
};
const INTENT_ID = '0195f1a2-7c3b-7d10-9a4e-3f2b1c0d9e8f';

function send(payload: unknown, headers: Record<string, string> = { 'x-api-key': tenant.apiKey }) {
  return t.app.inject({
    method: 'POST',
    url: `/v2/request/payment-intents/${INTENT_ID}`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(payload),
  });
}

describe('POST /v2/request/payment-intents/{paymentIntentId}', () => {
  it('answers 410 payment_intents_removed naming /pay, to easy-invoice’s signed intent', async () => {
    const [before] = await t.db.select({ n: count() }).from(requests);
    for (const body of [
      SIGNED,
      { signedPaymentIntent: SIGNED.signedPaymentIntent },
      // request-commerce's client lets extra members through (passthrough).
      { ...SIGNED, platformId: 'shop' },
      {},
    ]) {
      const res = await send(body);
      expect(res.statusCode, res.body).toBe(410);
      expect(res.json()).toMatchObject({
        statusCode: 410,
        error: 'Gone',
        code: 'payment_intents_removed',
      });
      expect(res.json().message).toContain('GET /v2/request/{requestId}/pay');
      expect(res.json().message).toContain('0.31.0');
    }
    // The same with a backend client ID.
    const asClient = await send(SIGNED, { 'x-client-id': tenant.backendClientId });
    expect(asClient.statusCode).toBe(410);
    const [after] = await t.db.select({ n: count() }).from(requests);
    expect(after?.n).toBe(before?.n);
  });

  it('still wants a credential, and a JSON object', async () => {
    expect((await send(SIGNED, {})).statusCode).toBe(401);
    expect((await send(SIGNED, { 'x-api-key': 'sk_nope' })).statusCode).toBe(401);
    const list = await send([SIGNED]);
    expect(list.statusCode).toBe(400);
  });
});
