import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payers, paymentDetails } from '../../src/db/schema/payers.ts';
import { bankBody, kycBody, type PayerWorld, startPayerWorld } from '../payer-world.ts';

/**
 * A payer's whole life over real HTTP (KYC, the provider's verdicts, agreement, bank details,
 * refusals of malformed input, erasure) logs none of its personal values, and no error body
 * echoes one, even where the value is what was wrong.
 */

const TAG = '8642';
const kyc = kycBody('privacy-user', TAG);
const bank = bankBody(TAG);
/** Values found nowhere but in what the test sends. */
const PERSONAL = [
  kyc.email,
  kyc.firstName,
  kyc.lastName,
  kyc.addressLine1,
  kyc.city,
  kyc.ssn,
  bank.accountName,
  bank.accountNumber,
  bank.documentNumber,
  'Zebulon-Quartz',
  'ssn-777-66-5555',
  'IBAN-DE89370400440532013000',
];

let w: PayerWorld;
const errorBodies: string[] = [];

beforeAll(async () => {
  w = await startPayerWorld();
});
afterAll(() => w.close());

describe('a payer’s life in the log', () => {
  it('runs the whole flow, with malformed input on the way', async () => {
    const { tenant, receiver } = await w.tenant();
    const key = tenant.apiKey;
    const refused = async (method: string, path: string, body: unknown, status = 400) => {
      const res = await w.call(method, path, key, body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      errorBodies.push(JSON.stringify(res.body));
    };
    // Validation errors whose wrong values are personal.
    await refused('POST', '/v2/payer', { ...kyc, email: 'Zebulon-Quartz at home' });
    await refused('POST', '/v2/payer', { ...kyc, phone: 'ssn-777-66-5555' });
    await refused('POST', '/v2/payer', {
      ...kyc,
      dateOfBirth: 'Zebulon-Quartz',
      country: 'Zebulon-Quartz',
    });
    const bad = await fetch(`${w.baseUrl}/v2/payer`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: `{"clientUserId":"privacy-user","ssn":"ssn-777-66-5555",`,
    });
    expect(bad.status).toBe(400);
    errorBodies.push(await bad.text());

    expect((await w.call('POST', '/v2/payer', key, kyc)).status).toBe(200);
    const [row] = await w.t.db.select().from(payers).where(eq(payers.clientUserId, 'privacy-user'));
    await w.fake.decideKyc(String(row?.providerUserId), 'approved');
    expect(
      (await w.call('PATCH', '/v2/payer/privacy-user', key, { agreementCompleted: true })).status,
    ).toBe(200);
    await refused('POST', '/v2/payer/privacy-user/payment-details', {
      ...bank,
      accountNumber: 'Zebulon-Quartz',
    });
    await refused('POST', '/v2/payer/privacy-user/payment-details', {
      ...bank,
      iban: 'IBAN-DE89370400440532013000',
      accountNumber: undefined,
    });
    await refused('POST', '/v2/payer/privacy-user/payment-details', {
      ...bank,
      currency: 'Zebulon-Quartz',
    });
    const added = await w.call('POST', '/v2/payer/privacy-user/payment-details', key, bank);
    expect(added.status).toBe(201);
    const [detail] = await w.t.db
      .select()
      .from(paymentDetails)
      .where(eq(paymentDetails.payerId, String(row?.id)));
    await w.fake.decideAccount(String(detail?.providerAccountId), 'approved');
    expect((await w.call('GET', '/v2/payer/privacy-user', key)).status).toBe(200);
    expect((await w.call('GET', '/v2/payer/privacy-user/payment-details', key)).status).toBe(200);
    // initiated, approved, completed, bank approved.
    await receiver.waitFor(4, 15_000);
    expect((await w.call('DELETE', '/v2/payer/privacy-user', key)).status).toBe(200);
    await refused('GET', '/v2/payer/privacy-user', undefined, 404);
  });

  it('logged requests, and none of the personal values', () => {
    const logged = w.t.logs.text();
    expect(logged).toContain('/v2/payer');
    for (const value of PERSONAL) expect(logged, value).not.toContain(value);
  });

  it('echoed none of them in an error body', () => {
    expect(errorBodies.length).toBe(8);
    const bodies = errorBodies.join('\n');
    for (const value of PERSONAL) expect(bodies, value).not.toContain(value);
  });
});
