import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../test/fixtures.ts';
import { bankBody, kycBody, type PayerWorld, startPayerWorld } from '../../test/payer-world.ts';
import type { Receiver } from '../../test/webhook-receiver.ts';
import { signTimed } from '../base/timed-signature.ts';
import { payers, paymentDetails } from '../db/schema/payers.ts';

/**
 * The provider's callbacks, really signed, replayed and out of order: an event id applied once
 * changes nothing again, an event created before the last one applied is stale, and a status we
 * do not know never downgrades what is stored.
 */

let w: PayerWorld;
let owner: { tenant: Tenant; receiver: Receiver };

beforeAll(async () => {
  w = await startPayerWorld();
  owner = await w.tenant();
});
afterAll(() => w.close());

const key = () => owner.tenant.apiKey;

function callback(
  type: string,
  createdAt: Date,
  object: Record<string, unknown>,
  id = randomUUID(),
) {
  return JSON.stringify({
    event_id: id,
    event_type: type,
    event_created_at: createdAt.toISOString(),
    event_object: object,
  });
}

async function send(body: string): Promise<number> {
  const res = await fetch(`${w.baseUrl}/v2/payer/compliance-callbacks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-compliance-signature': signTimed(
        'test-compliance-callback-secret',
        Math.floor(Date.now() / 1000),
        body,
      ),
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

const kycStatus = async (clientUserId: string) =>
  (await w.call('GET', `/v2/payer/${clientUserId}`, key())).body.kycStatus;

describe('replayed and out-of-order compliance callbacks', () => {
  it('a replayed or older approval after a later verdict changes nothing', async () => {
    expect((await w.call('POST', '/v2/payer', key(), kycBody('rp-1', '9101'))).status).toBe(200);
    const [row] = await w.t.db.select().from(payers).where(eq(payers.clientUserId, 'rp-1'));
    const customer = String(row?.providerUserId);
    const t0 = Date.now();
    const approved = callback('customer.updated', new Date(t0), {
      id: customer,
      kyc_status: 'approved',
      tos_status: 'pending',
    });
    expect(await send(approved)).toBe(200);
    expect(await kycStatus('rp-1')).toBe('approved');
    const rejected = callback('customer.updated', new Date(t0 + 1000), {
      id: customer,
      kyc_status: 'rejected',
      tos_status: 'pending',
    });
    expect(await send(rejected)).toBe(200);
    expect(await kycStatus('rp-1')).toBe('rejected');
    await owner.receiver.waitFor(3, 15_000);
    const sent = owner.receiver.received.length;

    // The same approval again (same event id), and a new id created before the rejection.
    expect(await send(approved)).toBe(200);
    const older = callback('customer.updated', new Date(t0 + 500), {
      id: customer,
      kyc_status: 'approved',
      tos_status: 'approved',
    });
    expect(await send(older)).toBe(200);
    // An unknown KYC status keeps what is stored.
    const unknown = callback('customer.updated', new Date(t0 + 2000), {
      id: customer,
      kyc_status: 'mystery',
      tos_status: 'pending',
    });
    expect(await send(unknown)).toBe(200);
    expect((await w.call('GET', '/v2/payer/rp-1', key())).body).toMatchObject({
      kycStatus: 'rejected',
      agreementStatus: 'pending',
      isCompliant: false,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(owner.receiver.received).toHaveLength(sent);
  });

  it('a bank account keeps its verdict against replays, older events and unknown statuses', async () => {
    expect((await w.call('POST', '/v2/payer', key(), kycBody('rp-2', '9201'))).status).toBe(200);
    const res = await w.call('POST', '/v2/payer/rp-2/payment-details', key(), bankBody('9201'));
    expect(res.status).toBe(201);
    const id = String((res.body.payment_detail as { id: string }).id);
    const detail = async () =>
      (await w.t.db.select().from(paymentDetails).where(eq(paymentDetails.id, id)))[0];
    const account = String((await detail())?.providerAccountId);
    const t0 = Date.now();
    const object = (status: string) => ({ id: account, status });
    const approved = callback('external_account.updated', new Date(t0), object('approved'));
    expect(await send(approved)).toBe(200);
    expect((await detail())?.status).toBe('approved');
    const failed = callback('external_account.updated', new Date(t0 + 1000), object('failed'));
    expect(await send(failed)).toBe(200);
    expect((await detail())?.status).toBe('failed');
    expect(await send(approved)).toBe(200);
    expect(
      await send(callback('external_account.updated', new Date(t0 + 500), object('approved'))),
    ).toBe(200);
    expect((await detail())?.status).toBe('failed');

    const later = callback('external_account.updated', new Date(t0 + 2000), object('approved'));
    expect(await send(later)).toBe(200);
    expect((await detail())?.status).toBe('approved');
    expect(
      await send(callback('external_account.updated', new Date(t0 + 3000), object('on_hold'))),
    ).toBe(200);
    expect((await detail())?.status).toBe('approved');
  });

  it('refuses a callback without an event id or creation time (400), changing nothing', async () => {
    const body = JSON.stringify({
      event_type: 'customer.updated',
      event_object: { id: 'cus_x', kyc_status: 'approved' },
    });
    expect(await send(body)).toBe(400);
  });
});
