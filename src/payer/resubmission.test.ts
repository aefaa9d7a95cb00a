import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../../test/fixtures.ts';
import { bankBody, kycBody, type PayerWorld, startPayerWorld } from '../../test/payer-world.ts';
import type { Receiver } from '../../test/webhook-receiver.ts';
import { payers } from '../db/schema/payers.ts';

/**
 * Re-submitting a payer's KYC: other data restarts an approved KYC (at the provider too), the
 * same data keeps it, and a re-submission the provider refuses or cannot take leaves the stored
 * data and states as they were.
 */

let w: PayerWorld;
let owner: { tenant: Tenant; receiver: Receiver };

beforeAll(async () => {
  w = await startPayerWorld();
  owner = await w.tenant();
});
afterAll(() => w.close());

const key = () => owner.tenant.apiKey;

async function rowOf(clientUserId: string) {
  const [row] = await w.t.db.select().from(payers).where(eq(payers.clientUserId, clientUserId));
  if (!row) throw new Error('no payer');
  return row;
}

async function approved(clientUserId: string, tag: string): Promise<void> {
  expect((await w.call('POST', '/v2/payer', key(), kycBody(clientUserId, tag))).status).toBe(200);
  const row = await rowOf(clientUserId);
  expect(await w.fake.decideKyc(String(row.providerUserId), 'approved')).toBe(200);
  const patched = await w.call('PATCH', `/v2/payer/${clientUserId}`, key(), {
    agreementCompleted: true,
  });
  expect(patched.status).toBe(200);
  expect((await w.call('GET', `/v2/payer/${clientUserId}`, key())).body).toMatchObject({
    kycStatus: 'approved',
    isCompliant: true,
  });
}

describe('re-submitting an approved payer', () => {
  it('keeps the approval for the very same data', async () => {
    await approved('same-1', '8101');
    await owner.receiver.waitFor(3, 15_000);
    const seen = owner.receiver.received.length;
    const res = await w.call('POST', '/v2/payer', key(), kycBody('same-1', '8101'));
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ agreementStatus: 'completed', kycStatus: 'completed' });
    expect((await w.call('GET', '/v2/payer/same-1', key())).body).toMatchObject({
      kycStatus: 'approved',
      isCompliant: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(owner.receiver.received).toHaveLength(seen);
  });

  it('restarts the KYC for another identity: not compliant until approved again', async () => {
    await approved('other-1', '8201');
    const seen = owner.receiver.received.length;
    const res = await w.call('POST', '/v2/payer', key(), kycBody('other-1', '8202'));
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ agreementStatus: 'completed', kycStatus: 'not_started' });
    expect((await w.call('GET', '/v2/payer/other-1', key())).body).toMatchObject({
      kycStatus: 'initiated',
      agreementStatus: 'completed',
      isCompliant: false,
    });
    await expect
      .poll(
        () =>
          owner.receiver.received
            .slice(seen)
            .some(
              (d) =>
                d.body.event === 'compliance.updated' &&
                d.body.clientUserId === 'other-1' &&
                d.body.kycStatus === 'initiated' &&
                d.body.isCompliant === false,
            ),
        { timeout: 15_000 },
      )
      .toBe(true);
    const row = await rowOf('other-1');
    expect(w.fake.customers.get(String(row.providerUserId))?.kyc_status).toBe('under_review');
    expect(await w.fake.decideKyc(String(row.providerUserId), 'approved')).toBe(200);
    expect((await w.call('GET', '/v2/payer/other-1', key())).body).toMatchObject({
      isCompliant: true,
    });
  });
});

describe('a re-submission the provider does not take', () => {
  it('leaves the stored data and states as they were, refused (400) or failed (502)', async () => {
    await approved('keep-1', '8301');
    const before = await rowOf('keep-1');
    for (const [status, code] of [
      [422, 'kyc_submission_refused'],
      [503, 'compliance_provider_failed'],
    ] as const) {
      w.fake.failWith(status);
      const res = await w.call('POST', '/v2/payer', key(), kycBody('keep-1', '8302'));
      w.fake.failWith(null);
      expect(res.body.code).toBe(code);
      expect(await rowOf('keep-1')).toEqual(before);
    }
    expect((await w.call('GET', '/v2/payer/keep-1', key())).body).toMatchObject({
      kycStatus: 'approved',
      isCompliant: true,
    });
  });

  it('keeps nothing of a refused first submission', async () => {
    w.fake.failWith(400);
    const res = await w.call('POST', '/v2/payer', key(), kycBody('new-1', '8401'));
    w.fake.failWith(null);
    expect(res.status).toBe(400);
    expect(await w.t.db.select().from(payers).where(eq(payers.clientUserId, 'new-1'))).toEqual([]);
  });
});

describe('a first submission the provider cannot take yet', () => {
  it('keeps it for a retry on a 408 or 425, which the retry then creates once', async () => {
    for (const [status, clientUserId] of [
      [408, 'later-1'],
      [425, 'later-2'],
    ] as const) {
      w.fake.failWith(status);
      const res = await w.call('POST', '/v2/payer', key(), kycBody(clientUserId, '8601'));
      w.fake.failWith(null);
      expect(res.body.code).toBe('compliance_provider_failed');
      const kept = await rowOf(clientUserId);
      expect(kept.providerUserId).toBeNull();

      const again = await w.call('POST', '/v2/payer', key(), kycBody(clientUserId, '8601'));
      expect(again.status).toBe(200);
      expect((await rowOf(clientUserId)).id).toBe(kept.id);
    }
  });

  it('keeps the customer the provider created when it then refuses the links', async () => {
    const before = w.fake.customers.size;
    w.fake.failWith(400, '/kyc_links');
    const res = await w.call('POST', '/v2/payer', key(), kycBody('links-1', '8701'));
    w.fake.failWith(null);
    expect(res.body.code).toBe('kyc_submission_refused');
    // The provider holds the data: the row names its customer, for erasure and for the retry.
    expect(w.fake.customers.size).toBe(before + 1);
    const kept = await rowOf('links-1');
    expect(w.fake.customers.has(String(kept.providerUserId))).toBe(true);

    const again = await w.call('POST', '/v2/payer', key(), kycBody('links-1', '8701'));
    expect(again.status).toBe(200);
    expect(w.fake.customers.size).toBe(before + 1);
    expect(await rowOf('links-1')).toMatchObject({
      id: kept.id,
      providerUserId: kept.providerUserId,
      kycStatus: 'initiated',
    });
  });
});

describe('dateOfBirth', () => {
  it('must be a real calendar day, not in the future, on payers and bank details', async () => {
    for (const bad of ['1990-13-45', '2023-02-29', '1990-04-31', '2999-01-01']) {
      for (const [path, body] of [
        ['/v2/payer', kycBody('dob-1', '8501', { dateOfBirth: bad })],
        ['/v2/payer/dob-1/payment-details', bankBody('8501', { dateOfBirth: bad })],
      ] as const) {
        const res = await w.call('POST', path, key(), body);
        expect(res.status, `${path} ${bad}`).toBe(400);
        expect(res.body.errors).toEqual([
          {
            field: 'dateOfBirth',
            message: 'must be a valid date (YYYY-MM-DD), not in the future',
          },
        ]);
        expect(JSON.stringify(res.body)).not.toContain(bad);
      }
    }
    const leap = await w.call(
      'POST',
      '/v2/payer',
      key(),
      kycBody('dob-1', '8501', { dateOfBirth: '2000-02-29' }),
    );
    expect(leap.status).toBe(200);
  });
});
