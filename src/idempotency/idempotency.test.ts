import { createHash } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { type StandIn, standIn } from '../../test/chain.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { AppError } from '../base/errors.ts';
import { idempotencyKeys, requests, securePayments } from '../db/schema.ts';
import { activateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { INVALID_KEY_MESSAGE, requestHash, scopeOf } from './keys.ts';
import { claimKey, claimRowOf, keyWriters, LEASE_MS, RETAIN_MS } from './records.ts';

/**
 * `Idempotency-Key` over HTTP on the real app: the first answer replayed byte for byte, a
 * changed request refused, a running one answered 409, a 5xx releasing the key, and the
 * claims of dead processes and old records giving way. Two routes of the test's own stand in
 * for a failing and a slow handler (the fault being injected); the rest is `POST /v2/payouts`.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const FLAKY = '/test/idempotency/flaky';
const SLOW = '/test/idempotency/slow';

let local: StandIn;
let t: TestApp;
let shop: Tenant;
let other: Tenant;
/** Runs of the flaky route; the first one fails. */
let flakyRuns = 0;
let releaseSlow: () => void = () => {};
let slowRuns = 0;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({
    env: local.env,
    transports: local.transports,
    extend: (app) => {
      app.post(FLAKY, { config: { auth: ['apiKey'] } }, async (_request, reply) => {
        flakyRuns += 1;
        if (flakyRuns === 1) throw new AppError('database_unavailable', 'Database unavailable');
        return reply.code(201).send({ run: flakyRuns });
      });
      app.post(SLOW, { config: { auth: ['apiKey'] } }, async () => {
        slowRuns += 1;
        await new Promise<void>((resolve) => {
          releaseSlow = resolve;
        });
        return { run: slowRuns };
      });
    },
  });
  shop = await createTenant(t.db, 'Shop');
  other = await createTenant(t.db, 'Other');
});
afterAll(async () => {
  await t.close();
  await local.chain.close();
});

const payout = (extra: Record<string, unknown> = {}) => ({
  payee: PAYEE,
  amount: '10',
  invoiceCurrency: 'USDC-base',
  paymentCurrency: 'USDC-base',
  ...extra,
});

function post(url: string, payload: unknown, headers: Record<string, string>) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

const withKey = (tenant: Tenant, key: string) => ({
  'x-api-key': tenant.apiKey,
  'idempotency-key': key,
});

async function requestCount(tenant: Tenant): Promise<number> {
  const [row] = await t.db
    .select({ n: count() })
    .from(requests)
    .where(eq(requests.accountId, tenant.accountId));
  return row?.n ?? 0;
}

/** The shop's destination for links (paid in the local chain's USDC). */
function shopDestination() {
  const usdc = (JSON.parse(local.env.TOKENS_BASE ?? '{}') as { USDC: string }).USDC;
  return activateDestination(
    t.db,
    t.clock,
    shop.accountId,
    resolveTarget(t.chains, { walletAddress: PAYEE, chainId: 8453, tokenAddress: usdc }),
  );
}

async function records(key: string) {
  return t.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
}

/** The answer is stored once it has been sent: waits for that before a retry is sent. */
async function kept(key: string): Promise<void> {
  await expect
    .poll(async () => (await records(key)).every((record) => record.status !== null))
    .toBe(true);
}

describe('Idempotency-Key', () => {
  it('runs a POST once and replays its answer byte for byte, saying so', async () => {
    const before = await requestCount(shop);
    const first = await post('/v2/payouts', payout(), withKey(shop, 'order-1'));
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await kept('order-1');
    const again = await post('/v2/payouts', payout(), withKey(shop, 'order-1'));
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Each answer keeps its own request id.
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await requestCount(shop)).toBe(before + 1);
  });

  it('takes the same JSON in another key order and spacing as the same request', async () => {
    const key = 'order-2';
    const first = await post('/v2/payouts', payout({ reference: 'a' }), withKey(shop, key));
    expect(first.statusCode, first.body).toBe(201);
    await kept(key);
    const reordered = `{ "reference": "a", "paymentCurrency": "USDC-base", "invoiceCurrency": "USDC-base", "amount": "10", "payee": "${PAYEE}" }`;
    const again = await post('/v2/payouts', reordered, withKey(shop, key));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('answers 422 to the same key with another body or path, running nothing', async () => {
    const key = 'order-3';
    const first = await post('/v2/payouts', payout(), withKey(shop, key));
    expect(first.statusCode).toBe(201);
    await kept(key);
    const before = await requestCount(shop);
    for (const [url, body] of [
      ['/v2/payouts', payout({ amount: '11' })],
      ['/v2/payouts?x=1', payout()],
      [FLAKY, payout()],
    ] as const) {
      const res = await post(url, body, withKey(shop, key));
      expect(res.statusCode, url).toBe(422);
      expect(res.json()).toEqual({
        statusCode: 422,
        error: 'Unprocessable Entity',
        code: 'idempotency_key_reused',
        message:
          'This Idempotency-Key was used with another request (method, path or body): use a new key',
      });
    }
    expect(await requestCount(shop)).toBe(before);
    // The key still holds its first answer.
    const replayed = await post('/v2/payouts', payout(), withKey(shop, key));
    expect(replayed.body).toBe(first.body);
  });

  it('holds a key for one request whichever way it is kept: a link’s and a payout’s refuse each other', async () => {
    const { destinationId } = await shopDestination();
    const link = { requests: [{ destinationId, amount: '5' }] };
    const linked = await post('/v2/secure-payments', link, withKey(shop, 'cross-1'));
    expect(linked.statusCode, linked.body).toBe(201);
    const before = await requestCount(shop);
    const payoutUnderIt = await post('/v2/payouts', payout(), withKey(shop, 'cross-1'));
    expect(payoutUnderIt.statusCode, payoutUnderIt.body).toBe(422);
    expect(payoutUnderIt.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await records('cross-1')).toEqual([]);

    const paid = await post('/v2/payouts', payout(), withKey(shop, 'cross-2'));
    expect(paid.statusCode, paid.body).toBe(201);
    await kept('cross-2');
    const linkUnderIt = await post('/v2/secure-payments', link, withKey(shop, 'cross-2'));
    expect(linkUnderIt.statusCode, linkUnderIt.body).toBe(422);
    expect(linkUnderIt.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await requestCount(shop)).toBe(before + 1);
    const keyed = await t.db
      .select({ key: securePayments.idempotencyKey })
      .from(securePayments)
      .where(eq(securePayments.accountId, shop.accountId));
    expect(keyed.filter((row) => row.key !== null)).toEqual([{ key: 'cross-1' }]);
  });

  it('answers 422, not 409, to a key a link took over from an expired record', async () => {
    const { destinationId } = await shopDestination();
    const paid = await post('/v2/payouts', payout(), withKey(shop, 'taken-over'));
    expect(paid.statusCode, paid.body).toBe(201);
    await kept('taken-over');
    t.clock.advance(RETAIN_MS + 1);
    // The record is past its 24 hours (not yet pruned): the key is free for a link.
    const link = { requests: [{ destinationId, amount: '5' }] };
    const linked = await post('/v2/secure-payments', link, withKey(shop, 'taken-over'));
    expect(linked.statusCode, linked.body).toBe(201);
    const again = await post('/v2/payouts', payout(), withKey(shop, 'taken-over'));
    expect(again.statusCode, again.body).toBe(422);
    expect(again.json()).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('keeps keys apart per account and per client ID', async () => {
    const key = 'shared-key';
    const mine = await post('/v2/payouts', payout(), withKey(shop, key));
    const theirs = await post('/v2/payouts', payout(), withKey(other, key));
    const client = await post('/v2/payouts', payout(), {
      'x-client-id': shop.backendClientId,
      'idempotency-key': key,
    });
    for (const res of [mine, theirs, client]) {
      expect(res.statusCode, res.body).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([mine, theirs, client].map((res) => res.json().requestId)).size).toBe(3);
    expect(await records(key)).toHaveLength(3);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not printable ASCII', 'clé'],
  ])('refuses a key that is %s with 400, writing nothing', async (_case, key) => {
    const before = await requestCount(shop);
    const res = await post('/v2/payouts', payout(), withKey(shop, key));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'invalid_idempotency_key',
      message: INVALID_KEY_MESSAGE,
    });
    expect(await requestCount(shop)).toBe(before);
  });

  it('accepts a key of 255 printable characters', async () => {
    const res = await post('/v2/payouts', payout(), withKey(shop, ' ~'.repeat(127).concat('!')));
    expect(res.statusCode, res.body).toBe(201);
  });

  it('answers 409 with Retry-After while the first request runs, then replays its answer', async () => {
    const headers = withKey(shop, 'slow-1');
    const running = post(SLOW, {}, headers);
    await expect.poll(async () => (await records('slow-1')).length).toBe(1);
    const busy = await post(SLOW, {}, headers);
    expect(busy.statusCode).toBe(409);
    expect(busy.headers['retry-after']).toBe('1');
    expect(busy.json()).toMatchObject({ code: 'idempotency_key_in_use' });
    releaseSlow();
    const first = await running;
    expect(first.json()).toEqual({ run: 1 });
    await kept('slow-1');
    const later = await post(SLOW, {}, headers);
    expect(later.body).toBe(first.body);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(slowRuns).toBe(1);
  });

  it('releases the key on a 5xx: the retry runs again and its answer is the one kept', async () => {
    const headers = withKey(shop, 'flaky-1');
    const failed = await post(FLAKY, {}, headers);
    expect(failed.statusCode).toBe(503);
    expect(await records('flaky-1')).toHaveLength(0);
    const retried = await post(FLAKY, {}, headers);
    expect(retried.statusCode).toBe(201);
    expect(retried.json()).toEqual({ run: 2 });
    await kept('flaky-1');
    const replayed = await post(FLAKY, {}, headers);
    expect(replayed.json()).toEqual({ run: 2 });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(flakyRuns).toBe(2);
  });

  it('keeps a 4xx the handler answered, and keeps nothing for a body its schema refused', async () => {
    const refusedHere = payout({ feePercentage: '1' });
    const first = await post('/v2/payouts', refusedHere, withKey(shop, 'fee-1'));
    expect(first.statusCode).toBe(400);
    await kept('fee-1');
    const again = await post('/v2/payouts', refusedHere, withKey(shop, 'fee-1'));
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');

    const invalid = await post('/v2/payouts', payout({ amount: 10 }), withKey(shop, 'schema-1'));
    expect(invalid.json()).toMatchObject({ code: 'validation_failed' });
    expect(await records('schema-1')).toHaveLength(0);
  });

  it('lets a claim left by a dead process lapse after its lease, for the same request only', async () => {
    const body = payout({ reference: 'lease' });
    // A process claimed the key for this request and died before answering.
    const dead = await claimKey(
      t.db,
      claimRowOf(
        {
          scope: scopeOf({ kind: 'apiKey', accountId: shop.accountId, apiKeyId: 'unused' }),
          key: 'dead-1',
          hash: requestHash('POST', '/v2/payouts', body),
        },
        t.clock.now(),
      ),
    );
    expect(dead).toMatchObject({ claim: expect.any(String) });
    const busy = await post('/v2/payouts', body, withKey(shop, 'dead-1'));
    expect(busy.statusCode).toBe(409);
    t.clock.advance(LEASE_MS);
    const changed = await post('/v2/payouts', payout(), withKey(shop, 'dead-1'));
    expect(changed.statusCode).toBe(422);
    const taken = await post('/v2/payouts', body, withKey(shop, 'dead-1'));
    expect(taken.statusCode, taken.body).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    await kept('dead-1');
  });

  it('forgets an answer after 24 hours: the key then runs a new request', async () => {
    const headers = withKey(shop, 'old-1');
    const first = await post('/v2/payouts', payout(), headers);
    await kept('old-1');
    t.clock.advance(RETAIN_MS - 1);
    const replayed = await post('/v2/payouts', payout(), headers);
    expect(replayed.body).toBe(first.body);
    t.clock.advance(1);
    const fresh = await post('/v2/payouts', payout({ amount: '12' }), headers);
    expect(fresh.statusCode, fresh.body).toBe(201);
    expect(fresh.json().requestId).not.toBe(first.json().requestId);
  });

  it('claims and keeps the keys of concurrent requests in fewer writes than requests', async () => {
    const { claims, answers } = keyWriters(t.db);
    const before = { claims: claims.stats.writes, answers: answers.stats.writes };
    const created = await requestCount(shop);
    const keys = Array.from({ length: 16 }, (_, i) => `burst-${i}`);
    // Two of the burst share a key: exactly one of them runs, the other finds it running or
    // answered.
    const sent = [...keys, 'burst-0'];
    const answered = await Promise.all(
      sent.map((key) => post('/v2/payouts', payout({ reference: 'burst' }), withKey(shop, key))),
    );
    const statuses = answered.map((answer) => answer.statusCode);
    expect(statuses.slice(1, 16)).toEqual(Array(15).fill(201));
    expect([statuses[0], statuses[16]].sort()).toSatisfy(
      (pair: number[]) => pair[0] === 201 && (pair[1] === 201 || pair[1] === 409),
    );
    await Promise.all(keys.map(kept));
    expect(await requestCount(shop)).toBe(created + 16);
    expect(claims.stats.writes - before.claims).toBeLessThan(sent.length);
    expect(answers.stats.writes - before.answers).toBeLessThan(16);
    for (const key of keys) {
      const [record] = await records(key);
      expect(record?.status).toBe(201);
    }
  });

  it('records nothing without a key, for reads, or for a caller with no credential', async () => {
    const before = await t.db.$count(idempotencyKeys);
    await post('/v2/payouts', payout(), { 'x-api-key': shop.apiKey });
    const read = await t.app.inject({
      method: 'GET',
      url: '/v2/currencies?network=base',
      headers: withKey(shop, 'read-1'),
    });
    expect(read.statusCode).toBe(200);
    const login = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      headers: { 'idempotency-key': 'anonymous-1' },
      payload: { email: 'nobody@example.com', password: 'wrong password' },
    });
    expect(login.statusCode).toBe(401);
    expect(await t.db.$count(idempotencyKeys)).toBe(before);
  });

  it('hashes a request as SHA-256 of its method, path and canonical JSON body (records keep it)', () => {
    // Written apart from the code: a record kept before an upgrade must still match after it.
    const expected = (text: string) => createHash('sha256').update(text).digest('base64url');
    expect(requestHash('POST', '/v2/payouts?x=1', { b: 1, a: 'x', c: undefined })).toBe(
      expected('POST /v2/payouts?x=1\n{"a":"x","b":1}'),
    );
    expect(requestHash('POST', '/raw', 'as sent')).toBe(expected('POST /raw\nas sent'));
    expect(requestHash('PATCH', '/bytes', Buffer.from('ok'))).toBe(expected('PATCH /bytes\nok'));
    expect(requestHash('POST', '/none', undefined)).toBe(expected('POST /none\n'));
  });
});
