import { eq, inArray } from 'drizzle-orm';
import type { Hex } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/client.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { requestSchedules, requests, webhookDeliveries } from '../../src/db/schema.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import {
  createOccurrenceGenerator,
  type OccurrenceGenerator,
} from '../../src/requests/occurrences.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * Recurring requests end to end, on the test clock: a series created over HTTP, its
 * occurrences made by the generator as time moves, each announced by a signed
 * `request.recurring` delivery that reaches a real receiver, each one a request of its own that
 * a payer pays on the local chain; stopped by PATCH, nothing more. And on Postgres, two
 * generators of two processes never make an occurrence twice.
 */

const source = inject('testDatabase');

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let dispatcher: Dispatcher;
let indexer: Indexer;
let generator: OccurrenceGenerator;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({
    env: { ...local.env, CONFIRMATIONS_BASE: '1' },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  dispatcher = testDispatcher(t);
  indexer = testIndexer(t, { confirmations: 1 });
  generator = createOccurrenceGenerator({ db: t.db, clock: t.clock, logger: t.app.log as never });
  // Registered with the client ID the series is made with: it hears of that client ID's requests.
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: clientHeaders(),
    payload: { url: receiver.url },
  });
  expect(registered.statusCode, registered.body).toBe(201);
  receiver.verifyWith(registered.json().secret);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
  await local?.chain.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

function clientHeaders() {
  return { 'x-client-id': tenant.backendClientId };
}

const status = async (requestId: string) => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/request/${requestId}`,
    headers: clientHeaders(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

/** Moves the clock, runs the generator, then sends what it wrote: this run's deliveries. */
async function at(date: string) {
  t.clock.set(new Date(date));
  const { generated } = await generator.tick();
  const before = receiver.received.length;
  await dispatcher.runOnce();
  const received = await receiver.waitFor(before + generated.length);
  return { generated, delivered: received.slice(before) };
}

describe('recurring requests', () => {
  it('makes three monthly occurrences as time moves, each announced and payable, then stops', async () => {
    t.clock.set(new Date('2026-11-22T12:00:00Z'));
    const payee = accountOf(local.chain, 1).address;
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: clientHeaders(),
      payload: {
        amount: '15',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee,
        reference: 'PLAN-PRO',
        recurrence: { startDate: '2026-12-01T00:00:00Z', frequency: 'MONTHLY' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const original = created.json() as { requestId: string; paymentReference: string };

    // Nothing before the first date after the start.
    expect((await at('2026-12-31T23:59:59Z')).generated).toEqual([]);

    const occurrences: { requestId: string; paymentReference: string }[] = [];
    for (const date of ['2027-01-01T00:00:00Z', '2027-02-01T00:00:00Z', '2027-03-01T00:00:00Z']) {
      const { generated, delivered } = await at(date);
      expect(generated.map((g) => g.occurrence)).toEqual([occurrences.length + 1]);
      expect(delivered).toHaveLength(1);
      const [delivery] = delivered;
      const requestId = generated[0]?.requestId ?? '';
      const shown = await status(requestId);
      // The reference's payload (api-facts §1.6) and the two ids receivers look the original up by.
      expect(delivery?.body).toEqual({
        event: 'request.recurring',
        requestId,
        requestID: requestId,
        paymentReference: shown.paymentReference,
        originalRequestId: original.requestId,
        originalRequestPaymentReference: original.paymentReference,
        timestamp: new Date(date).toISOString(),
      });
      expect(delivery?.headers['x-request-network-delivery']).toMatch(/^[0-9A-Z]{26}$/);
      expect(shown).toMatchObject({
        originalRequestId: original.requestId,
        originalRequestPaymentReference: original.paymentReference,
        expectedAmount: '15',
        payee,
        reference: 'PLAN-PRO',
        isRecurrenceStopped: false,
        status: 'pending',
      });
      occurrences.push({ requestId, paymentReference: shown.paymentReference });
    }
    expect(new Set(occurrences.map((o) => o.paymentReference)).size).toBe(3);
    expect(occurrences.map((o) => o.paymentReference)).not.toContain(original.paymentReference);

    // An occurrence is paid on its own reference: the others and the original stay pending.
    const payer = accountOf(local.chain, 2);
    const [second] = occurrences.slice(1);
    const pay = await t.app.inject({
      method: 'GET',
      url: `/v2/request/${second?.requestId}/pay?wallet=${payer.address}`,
      headers: clientHeaders(),
    });
    expect(pay.statusCode, pay.body).toBe(200);
    // The reference's shape: value as an ethers BigNumber, no chain id.
    await sendAll(
      local.chain,
      payer,
      pay.json().transactions.map((tx: { to: Hex; data: Hex; value: { hex: Hex } }) => ({
        ...tx,
        value: tx.value.hex,
        chainId: 8453,
      })),
    );
    await local.chain.provider.request({ method: 'evm_mine' });
    expect((await indexer.tick()).recorded).toBe(1);
    expect((await status(second?.requestId ?? '')).status).toBe('paid');
    expect((await status(occurrences[0]?.requestId ?? '')).status).toBe('pending');
    expect((await status(original.requestId)).status).toBe('pending');
    await dispatcher.runOnce();
    const confirmed = await receiver.waitFor(1);
    expect(confirmed.map((r) => [r.body.event, r.body.requestId])).toContainEqual([
      'payment.confirmed',
      second?.requestId,
    ]);

    // Stopped by PATCH (on the original): no occurrence after, however far time moves.
    const stopped = await t.app.inject({
      method: 'PATCH',
      url: `/v2/request/${original.requestId}`,
      headers: clientHeaders(),
      payload: { isRecurrenceStopped: true },
    });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.json().isRecurrenceStopped).toBe(true);
    receiver.received.length = 0;
    expect((await at('2027-12-01T00:00:00Z')).generated).toEqual([]);
    expect(await dispatcher.runOnce()).toBe(0);
    expect(receiver.received).toEqual([]);
    const series = await t.db
      .select({ id: requests.requestId })
      .from(requests)
      .where(eq(requests.originalRequestId, original.requestId));
    expect(series).toHaveLength(3);
    expect((await status(occurrences[2]?.requestId ?? '')).isRecurrenceStopped).toBe(true);
  });
});

describe.runIf(source.kind === 'postgres')('two generators on one Postgres', () => {
  const SCHEDULES = 12;
  const DAYS = 6;
  let second: DatabaseHandle;

  beforeAll(() => {
    if (t.database.engine.kind !== 'postgres') throw new Error('needs Postgres');
    const url = (t.database.engine.pool.options as { connectionString: string }).connectionString;
    second = openPostgres(url, 4);
  });
  afterAll(async () => {
    await second?.close();
  });

  it('makes each occurrence once and announces it once, however the two race', async () => {
    await t.db.update(requestSchedules).set({ stopped: true });
    t.clock.set(new Date('2028-01-01T00:00:00Z'));
    const originals: string[] = [];
    for (let i = 0; i < SCHEDULES; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v2/request',
        headers: clientHeaders(),
        payload: {
          amount: String(i + 1),
          invoiceCurrency: 'USDC-base',
          paymentCurrency: 'USDC-base',
          payee: accountOf(local.chain, 1).address,
          recurrence: { startDate: '2028-01-01T00:00:00Z', frequency: 'DAILY' },
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      originals.push(res.json().requestId);
    }
    const generators = [t.database, second].map((handle) =>
      createOccurrenceGenerator({ db: handle.db, clock: t.clock, logger: t.app.log as never }),
    );
    // Both ticking at once, again and again, as the days pass.
    const made: string[] = [];
    for (let day = 1; day <= DAYS; day++) {
      t.clock.set(new Date(Date.UTC(2028, 0, 1 + day)));
      const ticks = await Promise.all(generators.flatMap((g) => [g.tick(), g.tick()]));
      for (const tick of ticks) made.push(...tick.generated.map((g) => g.requestId));
    }
    expect(made).toHaveLength(SCHEDULES * DAYS);
    expect(new Set(made).size).toBe(SCHEDULES * DAYS);
    const rows = await t.db
      .select({ original: requests.originalRequestId, occurrence: requests.occurrence })
      .from(requests)
      .where(inArray(requests.originalRequestId, originals));
    const keys = rows.map((row) => `${row.original}:${row.occurrence}`);
    expect(keys).toHaveLength(SCHEDULES * DAYS);
    expect(new Set(keys).size).toBe(SCHEDULES * DAYS);
    const announced = (
      await t.db
        .select({ body: webhookDeliveries.body })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.event, 'request.recurring'))
    )
      .map((row) => JSON.parse(row.body) as { requestId: string; originalRequestId: string })
      .filter((body) => originals.includes(body.originalRequestId));
    expect(announced.map((body) => body.requestId).sort()).toEqual([...made].sort());
  });
});
