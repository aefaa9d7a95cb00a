import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../test/fixtures.ts';
import { bankBody, kycBody, type PayerWorld, startPayerWorld } from '../../test/payer-world.ts';
import type { Receiver } from '../../test/webhook-receiver.ts';
import { payers, paymentDetails } from '../db/schema/payers.ts';

/**
 * Erasing a payer reaches the provider: its customer (and bank accounts) deleted there, and our
 * rows keep no provider id. A provider that cannot delete does not stop the erasure here; the
 * operator is told which customer is left.
 */

let w: PayerWorld;
let owner: { tenant: Tenant; receiver: Receiver };

beforeAll(async () => {
  w = await startPayerWorld();
  owner = await w.tenant();
});
afterAll(() => w.close());

const key = () => owner.tenant.apiKey;

async function payerWithAccount(clientUserId: string, tag: string) {
  expect((await w.call('POST', '/v2/payer', key(), kycBody(clientUserId, tag))).status).toBe(200);
  const res = await w.call(
    'POST',
    `/v2/payer/${clientUserId}/payment-details`,
    key(),
    bankBody(tag),
  );
  expect(res.status).toBe(201);
  const [row] = await w.t.db.select().from(payers).where(eq(payers.clientUserId, clientUserId));
  const [detail] = await w.t.db
    .select()
    .from(paymentDetails)
    .where(eq(paymentDetails.payerId, String(row?.id)));
  return {
    id: String(row?.id),
    customer: String(row?.providerUserId),
    account: String(detail?.providerAccountId),
  };
}

describe('erasing a payer', () => {
  it('deletes the customer at the provider and keeps no provider id', async () => {
    const { id, customer, account } = await payerWithAccount('er-1', '9301');
    expect(w.fake.customers.has(customer)).toBe(true);
    expect((await w.call('DELETE', '/v2/payer/er-1', key())).status).toBe(200);
    expect(w.fake.customers.has(customer)).toBe(false);
    expect(w.fake.accounts.has(account)).toBe(false);
    const [row] = await w.t.db.select().from(payers).where(eq(payers.id, id));
    expect(row).toMatchObject({ providerUserId: null, personal: null });
    const [detail] = await w.t.db
      .select()
      .from(paymentDetails)
      .where(eq(paymentDetails.payerId, id));
    expect(detail).toMatchObject({ providerAccountId: null, personal: null });
  });

  it('starts an erased payer over as a new customer, which takes its KYC and bank account', async () => {
    const { id, customer } = await payerWithAccount('er-3', '9303');
    expect((await w.call('DELETE', '/v2/payer/er-3', key())).status).toBe(200);
    // The same data again: the provider must not answer it with the customer it deleted.
    const again = await w.call('POST', '/v2/payer', key(), kycBody('er-3', '9303'));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const [row] = await w.t.db.select().from(payers).where(eq(payers.id, id));
    expect(row?.providerUserId).not.toBe(customer);
    expect(w.fake.customers.has(String(row?.providerUserId))).toBe(true);
    const res = await w.call('POST', '/v2/payer/er-3/payment-details', key(), bankBody('9303'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it('erases here even when the provider fails, and says which customer is left', async () => {
    const { id, customer } = await payerWithAccount('er-2', '9302');
    w.fake.failWith(503);
    const res = await w.call('DELETE', '/v2/payer/er-2', key());
    w.fake.failWith(null);
    expect(res).toEqual({ status: 200, body: { success: true } });
    expect(w.fake.customers.has(customer)).toBe(true);
    const [row] = await w.t.db.select().from(payers).where(eq(payers.id, id));
    expect(row).toMatchObject({ providerUserId: null, personal: null });
    const warned = w.t.logs
      .entries()
      .find((e) => e.msg === 'compliance provider customer not deleted: delete it there by hand');
    expect(warned).toMatchObject({ payerId: id, providerCustomerId: customer });
  });
});
