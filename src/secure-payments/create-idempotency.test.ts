import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant } from '../../test/fixtures.ts';
import {
  apiKey,
  create,
  destination,
  linkDraft,
  PAY_URL,
  rowCounts,
  setupSecurePaymentsApp,
  shop,
  t,
  wallet,
} from '../../test/secure-payments.ts';
import { feeLegs, idempotencyKeys, requests, securePayments } from '../db/schema.ts';
import { activateDestination, deactivateDestination } from '../destinations/destinations.ts';
import { resolveTarget } from '../destinations/target.ts';
import { requestHash } from '../idempotency/keys.ts';
import { claimKey, claimRowOf, keyWriters, RETAIN_MS } from '../idempotency/records.ts';
import type { LinkKey } from './insert-link.ts';
import { linkWriter, writeLink } from './link-group.ts';
import { releaseLinkKeys } from './link-keys.ts';

/**
 * `Idempotency-Key` on `POST /v2/secure-payments`, whose link keeps the key itself: the key is
 * written by the statement that writes the link (or its transaction, when the link has fee
 * legs), so a keyed creation costs no write of its own, and a retry's 201 is rendered again from
 * the link it names.
 */

setupSecurePaymentsApp();

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

function post(app: TestApp, payload: Record<string, unknown>, headers: Record<string, string>) {
  return app.app.inject({ method: 'POST', url: '/v2/secure-payments', headers, payload });
}

async function records(app: TestApp, key: string) {
  return app.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));
}

/** The links holding `key`, with what they keep of it. */
async function keyedLinks(app: TestApp, key: string) {
  return app.db
    .select({
      token: securePayments.token,
      scope: securePayments.idempotencyScope,
      hash: securePayments.idempotencyHash,
    })
    .from(securePayments)
    .where(eq(securePayments.idempotencyKey, key));
}

describe('Idempotency-Key on POST /v2/secure-payments', () => {
  it('keeps the key on the link it makes: no record, no write of its own, replayed byte for byte', async () => {
    const d = await destination(shop);
    const body = { requests: [{ destinationId: d.destinationId, amount: '12.5' }] };
    const { claims, answers } = keyWriters(t.db);
    const writes = { claims: claims.stats.writes, answers: answers.stats.writes };
    const before = await rowCounts();
    const headers = { ...apiKey(shop), 'idempotency-key': 'link-1' };

    const first = await create(headers, body);
    expect(first.statusCode, first.body).toBe(201);
    // Kept with no wait: it was committed with the link.
    expect(await keyedLinks(t, 'link-1')).toEqual([
      {
        token: first.json().token,
        scope: `account:${shop.accountId}`,
        hash: requestHash('POST', '/v2/secure-payments', body),
      },
    ]);
    expect(await records(t, 'link-1')).toEqual([]);
    expect({ claims: claims.stats.writes, answers: answers.stats.writes }).toEqual(writes);

    const again = await create(headers, body);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await rowCounts()).toEqual({ links: before.links + 1, requests: before.requests + 1 });
  });

  it('answers 422 to the key with another body, writing nothing', async () => {
    const d = await destination(shop);
    const headers = { ...apiKey(shop), 'idempotency-key': 'link-2' };
    const first = await create(headers, {
      requests: [{ destinationId: d.destinationId, amount: '1' }],
    });
    expect(first.statusCode).toBe(201);
    const before = await rowCounts();
    const changed = await create(headers, {
      requests: [{ destinationId: d.destinationId, amount: '2' }],
    });
    expect(changed.statusCode).toBe(422);
    expect(changed.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await rowCounts()).toEqual(before);
  });

  it('makes one link for 20 concurrent requests with one key; the other 19 get its 201', async () => {
    const d = await destination(shop);
    const body = { requests: [{ destinationId: d.destinationId, amount: '3' }], reference: 'one' };
    const before = await rowCounts();
    const headers = { ...apiKey(shop), 'idempotency-key': 'link-3' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(headers, body)));
    expect(await rowCounts()).toEqual({ links: before.links + 1, requests: before.requests + 1 });
    // The key's answer is committed with the link: whoever finds it held finds it answered.
    expect(answers.map((res) => res.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((res) => res.body)).size).toBe(1);
    const replayed = answers.filter((res) => res.headers['idempotent-replayed'] === 'true');
    expect(replayed).toHaveLength(19);
  });

  it('replays the 201 to a retry that, run again, would now be refused', async () => {
    const d = await destination(shop);
    const body = { requests: [{ destinationId: d.destinationId, amount: '4' }] };
    const headers = { ...apiKey(shop), 'idempotency-key': 'link-5' };
    const first = await create(headers, body);
    expect(first.statusCode, first.body).toBe(201);
    await deactivateDestination(t.db, t.clock, d);
    const before = await rowCounts();
    const again = await create(headers, body);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    // And another request under the key is refused as such, not for its own faults.
    const other = await create(headers, {
      requests: [{ destinationId: 'unknown-destination', amount: '4' }],
    });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await rowCounts()).toEqual(before);
  });

  it('keeps nothing for a refusal made before the write: a retry runs afresh', async () => {
    const headers = { ...apiKey(shop), 'idempotency-key': 'link-4' };
    const body = { requests: [{ destinationId: 'unknown-destination', amount: '1' }] };
    const first = await create(headers, body);
    expect(first.statusCode).toBe(400);
    const again = await create(headers, body);
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await keyedLinks(t, 'link-4')).toHaveLength(0);
    // Nothing was made under the key: it is free for the request the client meant.
    const d = await destination(shop);
    const fixed = await create(headers, {
      requests: [{ destinationId: d.destinationId, amount: '1' }],
    });
    expect(fixed.statusCode, fixed.body).toBe(201);
  });

  it('lets the key go after 24 hours: the next request under it makes a link of its own', async () => {
    const d = await destination(shop);
    const headers = { ...apiKey(shop), 'idempotency-key': 'link-6' };
    const first = await create(headers, {
      requests: [{ destinationId: d.destinationId, amount: '6' }],
    });
    expect(first.statusCode, first.body).toBe(201);
    t.clock.advance(RETAIN_MS - 1);
    const replayed = await create(headers, {
      requests: [{ destinationId: d.destinationId, amount: '6' }],
    });
    expect(replayed.body).toBe(first.body);
    t.clock.advance(1);
    const fresh = await create(headers, {
      requests: [{ destinationId: d.destinationId, amount: '7' }],
    });
    expect(fresh.statusCode, fresh.body).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect((await keyedLinks(t, 'link-6')).map((link) => link.token)).toEqual([fresh.json().token]);
    // The janitor's round lets the others go: links made under a key a day ago keep none.
    const old = await keyedLinks(t, 'link-1');
    expect(old).toHaveLength(1);
    expect(await releaseLinkKeys(t.db, t.clock.now())).toBeGreaterThanOrEqual(1);
    expect(await keyedLinks(t, 'link-1')).toEqual([]);
    expect(await keyedLinks(t, 'link-6')).toHaveLength(1);
  });
});

describe('a link written with its key (link-group.ts)', () => {
  /** A key as the route has a link keep it. */
  const keyOf = (key: string): LinkKey => ({
    scope: `account:${shop.accountId}`,
    key,
    hash: requestHash('POST', '/x', { key }),
  });

  const write = (destinationId: string, key?: LinkKey) => {
    const { link, items } = linkDraft(destinationId, undefined, 1_000_000n);
    return writeLink(t.db, { ...link, idempotency: key ?? null }, items);
  };

  it('writes the link with its key, and nothing while another link holds the key', async () => {
    const d = await destination(shop);
    const written = await write(d.destinationId, keyOf('group-1'));
    expect(written).not.toBeNull();
    expect(await keyedLinks(t, 'group-1')).toHaveLength(1);
    const before = await rowCounts();
    expect(await write(d.destinationId, keyOf('group-1'))).toBeNull();
    expect(await rowCounts()).toEqual(before);
  });

  it('writes nothing under a key that a record of another route holds', async () => {
    const d = await destination(shop);
    const key = keyOf('group-6');
    const claim = claimRowOf({ scope: key.scope, key: key.key, hash: 'another' }, t.clock.now());
    expect(await claimKey(t.db, claim)).toMatchObject({ claim: claim.claim });
    const before = await rowCounts();
    expect(await write(d.destinationId, key)).toBeNull();
    expect(await rowCounts()).toEqual(before);
  });

  it('of two links with one key in one statement, the one whose destination holds takes it', async () => {
    const d = await destination(shop);
    const writes = linkWriter(t.db).stats.writes;
    const [refused, written] = await Promise.all([
      write('unknown-destination', keyOf('group-5')),
      write(d.destinationId, keyOf('group-5')),
    ]);
    expect(linkWriter(t.db).stats.writes - writes).toBe(1);
    expect(refused).toBeNull();
    expect(written).not.toBeNull();
    expect(await keyedLinks(t, 'group-5')).toHaveLength(1);
  });

  it('takes the keys of two groups that share them in one order: neither waits on the other', async () => {
    const d = await destination(shop);
    const stats = linkWriter(t.db).stats;
    const retried = stats.retriedGroups;
    // Two full groups written at once, the second with the first's keys in reverse: on
    // Postgres, taken in the order given, they deadlocked (and fell back to a write each).
    const keys = Array.from({ length: 64 }, (_, i) => `order-${String(i).padStart(2, '0')}`);
    const outcomes = await Promise.all(
      [...keys, ...keys.toReversed()].map((key) => write(d.destinationId, keyOf(key))),
    );
    expect(stats.retriedGroups).toBe(retried);
    expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(64);
  });

  it('writes a group of keyed and keyless links in one statement; of two with one key, one', async () => {
    const d = await destination(shop);
    const stats = linkWriter(t.db).stats;
    const writes = stats.writes;
    const retried = stats.retriedGroups;
    const before = await rowCounts();
    const outcomes = await Promise.all([
      ...['group-3', 'group-4', 'group-3'].map((key) => write(d.destinationId, keyOf(key))),
      write(d.destinationId),
      write(d.destinationId),
    ]);
    // The two under group-3: one of them (which one, the statement's order says).
    const [first, second, third, ...keyless] = outcomes;
    expect([first, third].filter((outcome) => outcome !== null)).toHaveLength(1);
    expect([second, ...keyless].every((outcome) => outcome !== null)).toBe(true);
    expect(stats.writes - writes).toBe(1);
    expect(stats.retriedGroups).toBe(retried);
    const ids = outcomes.flatMap((outcome) => outcome?.requestIds ?? []);
    const rows = await t.db
      .select({ id: requests.requestId })
      .from(requests)
      .innerJoin(securePayments, eq(securePayments.id, requests.securePaymentId))
      .where(inArray(requests.requestId, ids));
    expect(rows).toHaveLength(4);
    expect(await rowCounts()).toEqual({ links: before.links + 4, requests: before.requests + 4 });
    expect(await keyedLinks(t, 'group-3')).toHaveLength(1);
  });
});

describe('Idempotency-Key on a link with fee legs (written in a transaction)', () => {
  let app: TestApp;
  let key: string;
  let accountId: string;
  let destinationId: string;

  beforeAll(async () => {
    app = await createTestApp({
      env: {
        PAY_URL,
        PROTOCOL_FEE_BPS: '10',
        PROTOCOL_FEE_EVM_RECIPIENT: '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199',
      },
    });
    const tenant = await createTenant(app.db, 'Fees');
    key = tenant.apiKey;
    accountId = tenant.accountId;
    const target = resolveTarget(app.chains, {
      walletAddress: wallet(900),
      chainId: 8453,
      tokenAddress: BASE_USDC,
    });
    destinationId = (await activateDestination(app.db, app.clock, tenant.accountId, target))
      .destinationId;
  });
  afterAll(() => app.close());

  it('keeps the key on the link in its transaction: one link and its leg for 5 at once', async () => {
    const body = { requests: [{ destinationId, amount: '100' }] };
    const headers = { 'x-api-key': key, 'idempotency-key': 'fees-1' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(app, body, headers)));
    expect(answers.map((res) => res.statusCode)).toEqual(Array(5).fill(201));
    const [first] = answers.filter((res) => res.headers['idempotent-replayed'] === undefined);
    expect(answers.filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(4);
    for (const res of answers) expect(res.body).toBe(first?.body);
    expect((await keyedLinks(app, 'fees-1')).map((link) => link.token)).toEqual([
      first?.json().token,
    ]);
    expect(await records(app, 'fees-1')).toEqual([]);
    const links = await app.db
      .select({ id: securePayments.id })
      .from(securePayments)
      .where(eq(securePayments.accountId, accountId));
    expect(links).toHaveLength(1);
    const { requestIds } = (first?.json() ?? { requestIds: [] }) as { requestIds: string[] };
    const legs = await app.db
      .select({ id: feeLegs.id })
      .from(feeLegs)
      .innerJoin(requests, eq(requests.id, feeLegs.requestRowId))
      .where(inArray(requests.requestId, requestIds));
    expect(legs).toHaveLength(1);
  });
});
