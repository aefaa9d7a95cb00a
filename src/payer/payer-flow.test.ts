import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../test/fixtures.ts';
import { bankBody, kycBody, type PayerWorld, startPayerWorld } from '../../test/payer-world.ts';
import type { Receiver } from '../../test/webhook-receiver.ts';
import { signTimed } from '../base/timed-signature.ts';
import { payers, paymentDetails } from '../db/schema/payers.ts';

/**
 * A payer from KYC to a verified bank account over real HTTP: the fake provider approves,
 * refuses and asks for a retry through signed callbacks, and each status change reaches the
 * owner's webhook, signed, with the documented states and no personal field.
 */

let w: PayerWorld;
let owner: { tenant: Tenant; receiver: Receiver };
let other: { tenant: Tenant; receiver: Receiver };

beforeAll(async () => {
  w = await startPayerWorld();
  owner = await w.tenant();
  other = await w.tenant();
});
afterAll(() => w.close());

const key = () => owner.tenant.apiKey;

/** The next delivery of `event` to the owner after `seen` deliveries. */
async function nextEvent(seen: number, event: string): Promise<Record<string, unknown>> {
  const received = await owner.receiver.waitFor(seen + 1, 15_000);
  const delivery = received[seen];
  expect(delivery?.body.event).toBe(event);
  expect(delivery?.headers['x-request-network-signature']).toMatch(/^[0-9a-f]{64}$/);
  return delivery?.body ?? {};
}

async function providerIdOf(clientUserId: string): Promise<string> {
  const [row] = await w.t.db.select().from(payers).where(eq(payers.clientUserId, clientUserId));
  if (!row?.providerUserId) throw new Error('no provider id');
  return row.providerUserId;
}

describe('a payer from KYC to a verified bank account', () => {
  const body = kycBody('user-1', '4411');
  let userId: string;
  let detailId: string;

  it('submits KYC and answers the provider’s links', async () => {
    const res = await w.call('POST', '/v2/payer', key(), body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    userId = String(res.body.userId);
    expect(res.body).toEqual({
      agreementUrl: expect.stringMatching(new RegExp(`^${w.fake.url}/terms/`)),
      kycUrl: expect.stringMatching(new RegExp(`^${w.fake.url}/kyc/`)),
      status: { agreementStatus: 'not_started', kycStatus: 'not_started' },
      userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(await providerIdOf('user-1')).toMatch(/^cus_/);
    const event = await nextEvent(0, 'compliance.updated');
    expect(event).toMatchObject({
      clientUserId: 'user-1',
      kycStatus: 'initiated',
      agreementStatus: 'pending',
      isCompliant: false,
    });
    const status = await w.call('GET', '/v2/payer/user-1', key());
    expect(status.body).toEqual({
      kycStatus: 'initiated',
      agreementStatus: 'pending',
      isCompliant: false,
      userId,
    });
  });

  it('re-submitting the same clientUserId keeps the userId', async () => {
    const res = await w.call('POST', '/v2/payer', key(), { ...body, city: 'Arlington4411b' });
    expect(res.status).toBe(200);
    expect(res.body.userId).toBe(userId);
  });

  it('hears the provider’s approval through a signed callback', async () => {
    expect(await w.fake.decideKyc(await providerIdOf('user-1'), 'approved')).toBe(200);
    const event = await nextEvent(1, 'compliance.updated');
    expect(event).toEqual({
      event: 'compliance.updated',
      clientUserId: 'user-1',
      kycStatus: 'approved',
      agreementStatus: 'pending',
      isCompliant: false,
      timestamp: expect.any(String),
      rawPayload: {
        event_type: 'customer.updated',
        id: await providerIdOf('user-1'),
        kyc_status: 'approved',
        tos_status: 'pending',
      },
    });
  });

  it('records the agreement (PATCH) and tells the provider', async () => {
    const missing = await w.call('PATCH', '/v2/payer/user-1', key(), {});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('agreementCompleted must be provided');
    const wrong = await w.call('PATCH', '/v2/payer/user-1', key(), { agreementCompleted: 'yes' });
    expect(wrong.status).toBe(400);
    const none = await fetch(`${w.baseUrl}/v2/payer/user-1`, {
      method: 'PATCH',
      headers: { 'x-api-key': key() },
    });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { message: string }).message).toBe(
      'agreementCompleted must be provided',
    );
    const res = await w.call('PATCH', '/v2/payer/user-1', key(), { agreementCompleted: true });
    expect(res).toEqual({ status: 200, body: { success: true } });
    const event = await nextEvent(2, 'compliance.updated');
    expect(event).toMatchObject({
      kycStatus: 'approved',
      agreementStatus: 'completed',
      isCompliant: true,
    });
    expect(w.fake.customers.get(await providerIdOf('user-1'))?.tos_status).toBe('approved');
    const v1 = await w.call('GET', '/v1/payer/user-1', key());
    expect(v1.body).toEqual({
      kycStatus: 'approved',
      agreementStatus: 'completed',
      isCompliant: true,
      userId,
    });
  });

  it('adds bank details, pending until the provider verifies them', async () => {
    const res = await w.call('POST', '/v2/payer/user-1/payment-details', key(), bankBody('4411'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    detailId = String((res.body.payment_detail as { id: string }).id);
    expect(res.body).toEqual({
      payment_detail: {
        id: detailId,
        clientUserId: 'user-1',
        bankName: 'Chase',
        accountName: 'Grace Hopper 4411',
        currency: 'usd',
        beneficiaryType: 'individual',
      },
    });
    const listed = await w.call('GET', '/v2/payer/user-1/payment-details', key());
    expect(listed.body).toEqual({
      paymentDetails: [
        {
          id: detailId,
          userId,
          bankName: 'Chase',
          accountName: 'Grace Hopper 4411',
          beneficiaryType: 'individual',
          accountNumber: bankBody('4411').accountNumber,
          routingNumber: '021000021',
          currency: 'usd',
          status: 'pending',
          rails: 'local',
        },
      ],
    });
    const [row] = await w.t.db.select().from(paymentDetails).where(eq(paymentDetails.id, detailId));
    expect(await w.fake.decideAccount(String(row?.providerAccountId), 'approved')).toBe(200);
    const event = await nextEvent(3, 'payment_detail.updated');
    expect(event).toEqual({
      event: 'payment_detail.updated',
      clientUserId: 'user-1',
      paymentDetailsId: detailId,
      status: 'approved',
      timestamp: expect.any(String),
      rawPayload: {
        event_type: 'external_account.updated',
        id: row?.providerAccountId,
        status: 'approved',
      },
    });
    const one = await w.call(
      'GET',
      `/v1/payer/user-1/payment-details?paymentDetailsId=${detailId}`,
      key(),
    );
    expect((one.body.paymentDetails as { status: string }[]).map((d) => d.status)).toEqual([
      'approved',
    ]);
    expect(JSON.stringify(one.body)).not.toContain(bankBody('4411').documentNumber);
  });

  it('sends no personal value in any webhook, and only to the owner', () => {
    const sent = owner.receiver.received.map((delivery) => delivery.rawBody).join('\n');
    for (const value of [
      ...Object.values(body).filter((v) => v.length > 3 && v !== 'individual' && v !== 'user-1'),
      bankBody('4411').accountNumber,
    ]) {
      expect(sent, value).not.toContain(value);
    }
    expect(owner.receiver.refused).toEqual([]);
    expect(other.receiver.received).toEqual([]);
  });

  it('answers another account 404 on every operation', async () => {
    const k = other.tenant.apiKey;
    const payerMissing = {
      statusCode: 404,
      message: 'Payer with client user ID user-1 not found',
      error: 'Not Found',
    };
    const userMissing = {
      statusCode: 404,
      message: 'User with ID user-1 not found',
      error: 'Not Found',
    };
    for (const prefix of ['/v2/payer', '/v1/payer']) {
      expect((await w.call('GET', `${prefix}/user-1`, k)).body).toMatchObject(payerMissing);
      expect(
        (await w.call('PATCH', `${prefix}/user-1`, k, { agreementCompleted: true })).body,
      ).toMatchObject(payerMissing);
      expect((await w.call('GET', `${prefix}/user-1/payment-details`, k)).body).toMatchObject(
        userMissing,
      );
      expect(
        (await w.call('POST', `${prefix}/user-1/payment-details`, k, bankBody('1'))).body,
      ).toMatchObject(userMissing);
    }
    expect((await w.call('DELETE', '/v2/payer/user-1', k)).body).toMatchObject(payerMissing);
    // Its own POST of the same clientUserId makes its own payer, not the owner's.
    const own = await w.call('POST', '/v2/payer', k, kycBody('user-1', '5511'));
    expect(own.status).toBe(200);
    expect(own.body.userId).not.toBe(userId);
  });

  it('refuses client IDs: the routes take an API key only', async () => {
    const res = await fetch(`${w.baseUrl}/v2/payer/user-1`, {
      headers: { 'x-client-id': owner.tenant.backendClientId },
    });
    expect(res.status).toBe(403);
  });

  it('answers the same details sent again (a retry) with the same bank account, made once', async () => {
    const accounts = w.fake.accounts.size;
    const rows = (await w.t.db.select().from(paymentDetails)).length;
    const res = await w.call('POST', '/v2/payer/user-1/payment-details', key(), bankBody('4411'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((res.body.payment_detail as { id: string }).id).toBe(detailId);
    expect(w.fake.accounts.size).toBe(accounts);
    expect(await w.t.db.select().from(paymentDetails)).toHaveLength(rows);
    // Other details are another account.
    const other = await w.call('POST', '/v2/payer/user-1/payment-details', key(), bankBody('4412'));
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect((other.body.payment_detail as { id: string }).id).not.toBe(detailId);
    expect(w.fake.accounts.size).toBe(accounts + 1);
  });

  it('refuses bank details the provider would not take, storing nothing', async () => {
    const before = await w.t.db.select().from(paymentDetails);
    for (const bad of [{ accountNumber: 'not-a-number' }, {}]) {
      const { accountNumber: _n, ...rest } = bankBody('4411');
      const res = await w.call('POST', '/v2/payer/user-1/payment-details', key(), {
        ...rest,
        ...bad,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Invalid bank account details');
      expect(JSON.stringify(res.body)).not.toContain('not-a-number');
    }
    expect(await w.t.db.select().from(paymentDetails)).toHaveLength(before.length);
  });

  it('erases the payer (DELETE, ours): its GETs answer 404, its rows keep only accounting', async () => {
    const res = await w.call('DELETE', '/v2/payer/user-1', key());
    expect(res).toEqual({ status: 200, body: { success: true } });
    expect((await w.call('GET', '/v2/payer/user-1', key())).status).toBe(404);
    expect((await w.call('GET', '/v2/payer/user-1/payment-details', key())).status).toBe(404);
    const [row] = await w.t.db.select().from(payers).where(eq(payers.id, userId));
    expect(row).toMatchObject({
      personal: null,
      keyId: null,
      kycStatus: 'approved',
      agreementStatus: 'completed',
    });
    expect(row?.erasedAt).toBeInstanceOf(Date);
    const [detail] = await w.t.db
      .select()
      .from(paymentDetails)
      .where(eq(paymentDetails.id, detailId));
    expect(detail).toMatchObject({
      personal: null,
      keyId: null,
      status: 'approved',
      currency: 'usd',
    });
  });
});

describe('the provider’s other verdicts and its callbacks’ signature', () => {
  it('asks for a retry, then rejects; a re-submission restarts the KYC', async () => {
    const seen = owner.receiver.received.length;
    expect((await w.call('POST', '/v2/payer', key(), kycBody('user-2', '6622'))).status).toBe(200);
    await nextEvent(seen, 'compliance.updated');
    await w.fake.decideKyc(await providerIdOf('user-2'), 'incomplete');
    expect(await nextEvent(seen + 1, 'compliance.updated')).toMatchObject({
      kycStatus: 'retry_required',
    });
    expect((await w.call('POST', '/v2/payer', key(), kycBody('user-2', '6623'))).status).toBe(200);
    expect(await nextEvent(seen + 2, 'compliance.updated')).toMatchObject({
      kycStatus: 'initiated',
    });
    await w.fake.decideKyc(await providerIdOf('user-2'), 'rejected');
    expect(await nextEvent(seen + 3, 'compliance.updated')).toMatchObject({
      kycStatus: 'rejected',
      isCompliant: false,
    });
  });

  it('answers 502 while the provider fails, and takes the same submission once it is back', async () => {
    w.fake.failWith(503);
    const failed = await w.call('POST', '/v2/payer', key(), kycBody('user-3', '7733'));
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: 'compliance_provider_failed' });
    expect(JSON.stringify(failed.body)).not.toContain('7733');
    const warned = w.t.logs.entries().find((e) => e.msg === 'compliance provider call failed');
    expect(warned?.reason).toBe('compliance provider create customer: HTTP 503');
    w.fake.failWith(null);
    const retried = await w.call('POST', '/v2/payer', key(), kycBody('user-3', '7733'));
    expect(retried.status).toBe(200);
    const [row] = await w.t.db.select().from(payers).where(eq(payers.clientUserId, 'user-3'));
    expect(retried.body.userId).toBe(row?.id);
    expect(row?.kycStatus).toBe('initiated');
  });

  it('refuses a callback with a bad or missing signature, changing nothing', async () => {
    const customerId = await providerIdOf('user-2');
    const body = JSON.stringify({
      event_type: 'customer.updated',
      event_object: { id: customerId, kyc_status: 'approved', tos_status: 'approved' },
    });
    const now = Math.floor(Date.now() / 1000);
    for (const signature of [
      undefined,
      signTimed('wrong-secret-wrong-secret', now, body),
      signTimed('test-compliance-callback-secret', now - 3600, body),
    ]) {
      const res = await fetch(`${w.baseUrl}/v2/payer/compliance-callbacks`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(signature && { 'x-compliance-signature': signature }),
        },
        body,
      });
      expect(res.status).toBe(401);
    }
    const status = await w.call('GET', '/v2/payer/user-2', key());
    expect(status.body).toMatchObject({ kycStatus: 'rejected', isCompliant: false });
  });
});
