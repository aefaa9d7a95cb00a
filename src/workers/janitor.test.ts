import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant } from '../../test/fixtures.ts';
import { destinationNonces, idempotencyKeys, sessions, walletChallenges } from '../db/schema.ts';
import { RETAIN_MS } from '../idempotency/records.ts';
import { KEEP_EXPIRED_MS, purgeExpired } from './janitor.ts';

/** The janitor deletes challenges, nonces and sessions a day after they expire, nothing sooner. */

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const DAY = 24 * 60 * 60_000;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function counts() {
  return {
    challenges: await t.db.$count(walletChallenges),
    nonces: await t.db.$count(destinationNonces),
    sessions: await t.db.$count(sessions),
  };
}

describe('purgeExpired', () => {
  it('keeps rows until a day past their expiry, then deletes them', async () => {
    const tenant = await createTenant(t.db);
    const challenge = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/wallet/challenge',
      payload: { address: WALLET },
    });
    expect(challenge.statusCode).toBe(201);
    const signing = await t.app.inject({
      method: 'GET',
      url: `/v2/payee-destination/signing-data?walletAddress=${WALLET}&action=add&tokenAddress=0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE&chainId=8453`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(signing.statusCode, signing.body).toBe(200);
    const registered = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: 'janitor@example.com', password: 'correct horse battery' },
    });
    expect(registered.statusCode).toBe(201);
    expect(await counts()).toEqual({ challenges: 1, nonces: 1, sessions: 1 });

    // Expired not quite a day ago: still kept.
    t.clock.advance(DAY);
    expect(await purgeExpired(t.db, t.clock.now())).toEqual({
      challenges: 0,
      nonces: 0,
      sessions: 0,
      idempotencyKeys: 0,
      linkKeys: 0,
    });
    // A day and more past the challenge's and the nonce's expiry; the session has 29 days left.
    t.clock.advance(KEEP_EXPIRED_MS);
    expect(await purgeExpired(t.db, t.clock.now())).toEqual({
      challenges: 1,
      nonces: 1,
      sessions: 0,
      idempotencyKeys: 0,
      linkKeys: 0,
    });
    expect(await counts()).toEqual({ challenges: 0, nonces: 0, sessions: 1 });

    t.clock.advance(30 * DAY);
    expect(await purgeExpired(t.db, t.clock.now())).toMatchObject({ sessions: 1 });
    expect(await counts()).toEqual({ challenges: 0, nonces: 0, sessions: 0 });
  });

  it('deletes an Idempotency-Key record once its 24 hours are over, not before', async () => {
    const tenant = await createTenant(t.db, 'Keys');
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook',
      headers: { 'x-api-key': tenant.apiKey, 'idempotency-key': 'janitor-1' },
      payload: { url: 'https://hooks.example/payreq' },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(await t.db.$count(idempotencyKeys)).toBe(1);
    // Stored once sent: its 24 hours run from the claim either way.
    await expect.poll(async () => (await t.db.select().from(idempotencyKeys))[0]?.status).toBe(201);
    t.clock.advance(RETAIN_MS - 1);
    expect(await purgeExpired(t.db, t.clock.now())).toMatchObject({ idempotencyKeys: 0 });
    t.clock.advance(1);
    expect(await purgeExpired(t.db, t.clock.now())).toMatchObject({ idempotencyKeys: 1 });
    expect(await t.db.$count(idempotencyKeys)).toBe(0);
  });
});
