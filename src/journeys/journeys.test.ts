import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { journeySteps, journeys } from '../db/schema.ts';
import { MAX_JOURNEYS_PER_REQUEST } from './journeys.ts';

/** `/v2/journey` over HTTP on the real app: journeys, processors' steps, and their limits. */

const PAYEE = '0x4838B106FCe9647Bdf1E7877BF73cE8B0BAD5f97';

let t: TestApp;
let shop: Tenant;
let other: Tenant;

beforeAll(async () => {
  t = await createTestApp();
  shop = await createTenant(t.db, 'Shop');
  other = await createTenant(t.db, 'Other shop');
});
afterAll(() => t.close());

const key = (tenant: Tenant = shop) => ({ 'x-api-key': tenant.apiKey });

async function request(
  tenant: Tenant = shop,
): Promise<{ requestId: string; paymentReference: string }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/request',
    headers: key(tenant),
    payload: {
      amount: '25',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      payee: PAYEE,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function journeyFor(requestId: string, tenant: Tenant = shop): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/journey',
    headers: key(tenant),
    payload: { requestId },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().journeyId;
}

function postStep(queryId: string, payload: object, tenant: Tenant = shop) {
  return t.app.inject({
    method: 'POST',
    url: `/v2/journey/${encodeURIComponent(queryId)}`,
    headers: key(tenant),
    payload,
  });
}

function getJourney(journeyId: string, tenant: Tenant = shop) {
  return t.app.inject({
    method: 'GET',
    url: `/v2/journey/${encodeURIComponent(journeyId)}`,
    headers: key(tenant),
  });
}

async function stepCount(): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(journeySteps);
  return row?.n ?? 0;
}

const step = {
  status: 'received',
  amount: '25.00',
  currency: 'USDC',
  txReference: 'ex-7781',
  processedAt: '2026-11-22T12:05:00Z',
  rawPayload: { exchange: 'Kraken', network: 'base', fee: '0.1', note: 'first hop' },
};

describe('POST /v2/journey', () => {
  it('creates a journey for one of the caller’s requests and answers its id', async () => {
    const { requestId } = await request();
    const journeyId = await journeyFor(requestId);
    expect(journeyId).toMatch(/^jrn_[0-9A-Z]{26}$/);
    const [row] = await t.db.select().from(journeys).where(eq(journeys.id, journeyId));
    expect(row?.accountId).toBe(shop.accountId);
  });

  it('answers 404 request_not_found for a request that is unknown or another account’s, writing nothing', async () => {
    const theirs = await request(other);
    const [before] = await t.db.select({ n: count() }).from(journeys);
    for (const requestId of [theirs.requestId, `01${'ab'.repeat(32)}`, 'nonsense']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/journey',
        headers: key(),
        payload: { requestId },
      });
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toMatchObject({
        statusCode: 404,
        error: 'Not Found',
        code: 'request_not_found',
        message: 'Request not found',
      });
    }
    const [after] = await t.db.select({ n: count() }).from(journeys);
    expect(after?.n).toBe(before?.n);
  });

  it('answers 400 for a body without requestId, and takes only an API key', async () => {
    const missing = await t.app.inject({
      method: 'POST',
      url: '/v2/journey',
      headers: key(),
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe('validation_failed');
    const { requestId } = await request();
    const withClientId = await t.app.inject({
      method: 'POST',
      url: '/v2/journey',
      headers: { 'x-client-id': shop.backendClientId },
      payload: { requestId },
    });
    expect(withClientId.statusCode).toBe(403);
    expect(withClientId.json().code).toBe('credential_not_accepted');
    const none = await t.app.inject({ method: 'POST', url: '/v2/journey', payload: { requestId } });
    expect(none.statusCode).toBe(401);
  });

  it(`refuses a request's ${MAX_JOURNEYS_PER_REQUEST + 1}th journey with 409`, async () => {
    const { requestId } = await request();
    for (let i = 0; i < MAX_JOURNEYS_PER_REQUEST; i++) await journeyFor(requestId);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v2/journey',
      headers: key(),
      payload: { requestId },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'journey_limit_reached',
      message: `A request has at most ${MAX_JOURNEYS_PER_REQUEST} journeys`,
    });
  });
});

describe('POST /v2/journey/{queryId}', () => {
  it('records a processor’s step and answers it as the reference’s example shows', async () => {
    const { requestId } = await request();
    const journeyId = await journeyFor(requestId);
    const res = await postStep(journeyId, { ...step, nextProcessorId: 'offramp-eu' });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^jst_[0-9A-Z]{26}$/),
      journeyId,
      processorId: expect.any(String),
      status: 'received',
      amount: '25.00',
      currency: 'USDC',
      txReference: 'ex-7781',
      processedAt: '2026-11-22T12:05:00.000Z',
      rawPayload: step.rawPayload,
      nextProcessorId: 'offramp-eu',
    });
  });

  it('names the journey by its request id or payment reference: the request’s newest journey', async () => {
    const { requestId, paymentReference } = await request();
    await journeyFor(requestId);
    const newest = await journeyFor(requestId);
    for (const queryId of [requestId, paymentReference, paymentReference.slice(2)]) {
      const res = await postStep(queryId, step);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().journeyId).toBe(newest);
    }
  });

  it('answers 404 journey_not_found for a request with no journey, and for unknown ids', async () => {
    const { requestId } = await request();
    const before = await stepCount();
    for (const queryId of [
      requestId,
      `jrn_${'0'.repeat(26)}`,
      'jrn_short',
      `0x${'12'.repeat(8)}`,
    ]) {
      const res = await postStep(queryId, step);
      expect(res.statusCode, `${queryId}: ${res.body}`).toBe(404);
      expect(res.json()).toMatchObject({ code: 'journey_not_found', message: 'Journey not found' });
    }
    expect(await stepCount()).toBe(before);
  });

  it.each([
    ['no status', { ...step, status: undefined }, 'status'],
    ['an empty status', { ...step, status: '' }, 'status'],
    ['no amount', { ...step, amount: undefined }, 'amount'],
    ['an amount that is no decimal', { ...step, amount: '1e5' }, 'amount'],
    ['a number for amount', { ...step, amount: 25 }, 'amount'],
    ['no processedAt', { ...step, processedAt: undefined }, 'processedAt'],
    ['a processedAt that is no date-time', { ...step, processedAt: 'yesterday' }, 'processedAt'],
    [
      'a processedAt in a leap second',
      { ...step, processedAt: '2016-12-31T23:59:60Z' },
      'processedAt',
    ],
    [
      'a processedAt that does not exist',
      { ...step, processedAt: '2026-02-30T00:00:00Z' },
      'processedAt',
    ],
    [
      'a processedAt without a zone',
      { ...step, processedAt: '2026-11-22T12:05:00' },
      'processedAt',
    ],
    ['a txReference past 256 characters', { ...step, txReference: 'x'.repeat(257) }, 'txReference'],
    ['a status past 64 characters', { ...step, status: 's'.repeat(65) }, 'status'],
    [
      'a rawPayload past 16 KiB',
      { ...step, rawPayload: { blob: 'x'.repeat(16_384) } },
      'rawPayload',
    ],
    [
      'a rawPayload nested past 16 levels',
      { ...step, rawPayload: JSON.parse(`${'['.repeat(17)}${']'.repeat(17)}`) },
      'rawPayload',
    ],
  ])('answers 400 for %s, writing nothing', async (_name, payload, field) => {
    const { requestId } = await request();
    const journeyId = await journeyFor(requestId);
    const before = await stepCount();
    const res = await postStep(journeyId, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(JSON.stringify(res.json().errors)).toContain(field);
    expect(await stepCount()).toBe(before);
  });

  it('numbers steps posted at once one after the other', async () => {
    const { requestId } = await request();
    const journeyId = await journeyFor(requestId);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postStep(journeyId, { ...step, status: `s${i}` })),
    );
    for (const res of answers) expect(res.statusCode, res.body).toBe(201);
    const rows = await t.db
      .select({ stepIndex: journeySteps.stepIndex })
      .from(journeySteps)
      .where(eq(journeySteps.journeyId, journeyId));
    expect(rows.map((row) => row.stepIndex).sort((x, y) => x - y)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7,
    ]);
  });
});

describe('GET /v2/journey/{journeyId}', () => {
  it('answers the journey with payreq’s hops and the processors’ steps in time order', async () => {
    const { requestId, paymentReference } = await request();
    const journeyId = await journeyFor(requestId);
    // Posted out of order: the answer orders them by processedAt.
    await postStep(journeyId, { ...step, status: 'sent', processedAt: '2099-01-01T00:10:00Z' });
    await postStep(journeyId, {
      status: 'received',
      amount: '25',
      processedAt: '2099-01-01T00:00:00Z',
    });
    const res = await getJourney(journeyId);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ id: journeyId, requestId, createdAt: expect.any(String) });
    expect(body.events).toEqual([
      {
        id: expect.stringMatching(/^request:/),
        stepIndex: 0,
        source: 'payreq',
        type: 'request_created',
        status: 'created',
        amount: '25',
        currency: 'USDC-base',
        processedAt: expect.any(String),
        txReference: null,
        rawPayload: {
          network: 'base',
          payee: PAYEE,
          paymentReference,
          paymentCurrency: 'USDC-base',
          securePayment: false,
        },
      },
      {
        id: expect.stringMatching(/^jst_/),
        stepIndex: 1,
        source: 'processor',
        processorId: expect.any(String),
        status: 'received',
        amount: '25',
        currency: null,
        processedAt: '2099-01-01T00:00:00.000Z',
        txReference: null,
        rawPayload: null,
        nextProcessorId: null,
      },
      expect.objectContaining({ stepIndex: 2, source: 'processor', status: 'sent' }),
    ]);
  });

  it('answers 404 journey_not_found to another account, and for ids that are no journey', async () => {
    const { requestId } = await request();
    const journeyId = await journeyFor(requestId);
    await postStep(journeyId, step);
    const before = await stepCount();
    for (const [id, tenant] of [
      [journeyId, other],
      [journeyId.toLowerCase(), shop],
      ['jrn_', shop],
    ] as const) {
      const read = await getJourney(id, tenant);
      expect(read.statusCode).toBe(404);
      expect(read.json().code).toBe('journey_not_found');
      expect(read.body).not.toContain(requestId);
    }
    // Nor can another account post to it, by journey, request or payment reference.
    const theirsNot = await postStep(journeyId, step, other);
    expect(theirsNot.statusCode).toBe(404);
    const byRequest = await postStep(requestId, step, other);
    expect(byRequest.statusCode).toBe(404);
    expect(await stepCount()).toBe(before);
  });
});
