import type { ServerResponse } from 'node:http';
import { and, eq, gt, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  attemptLog,
  deliver,
  deliveriesTo,
  deliverMany,
  deliveryRow,
  dispatcherFor,
  LEASE_MS,
  patientDispatcher,
  receiver,
  register,
  setupDispatcherApps,
  startServer,
  TIMEOUT_MS,
  t,
} from '../../test/dispatcher.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { ulid } from '../base/ulid.ts';
import { queryRows } from '../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts';
import type { Claimed } from './claims.ts';

/**
 * Fair shares against real loopback servers (test/dispatcher.ts): one account's endpoint that
 * never answers holds a few slots and backs off, never the dispatcher; and a stop hands back
 * what waits and records what is out, so a second dispatcher sends the rest, each once.
 */

setupDispatcherApps();

/** Delivery ids as a receiver saw them, and how often each came. */
function counted(ids: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

const attemptsOf = async (webhookId: string) => {
  const [row] = await queryRows<{ count: number }>(
    t.db,
    sql`select count(*)::integer as count from webhook_attempts a
        join webhook_deliveries d on d.id = a.delivery_id where d.webhook_id = ${webhookId}`,
  );
  return row?.count ?? 0;
};

describe('one account’s endpoint that never answers', () => {
  let a: Tenant;
  let b: Tenant;
  beforeAll(async () => {
    [a, b] = await Promise.all([createTenant(t.db, 'Hangs'), createTenant(t.db, 'Waits')]);
  });

  it('holds a few slots and backs off, while another account’s webhook goes out', async () => {
    // Reads each request and never answers, until the file ends.
    let open = 0;
    let mostOpen = 0;
    const hanging = await startServer((request) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      request.socket.once('close', () => {
        open -= 1;
      });
    });
    const hung = await register(hanging.url, a);
    const queued = await deliverMany(hung, 200);
    const running = dispatcherFor(t);
    running.start(3_600_000);
    try {
      running.wake();
      await expect.poll(() => hanging.paths.length, { timeout: 10_000 }).toBeGreaterThan(0);
      const endpoint = await receiver();
      const id = await deliver(await register(endpoint.url, b));
      running.wake();
      const [received] = await endpoint.waitFor(1, 10_000);
      // Counted as B's webhook arrives: A's endpoint had seen a handful of its 200.
      const seenByA = hanging.paths.length;
      expect(received?.headers['x-service-delivery']).toBe(id);
      expect(seenByA).toBeLessThanOrEqual(50);
      const unsent = await t.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.webhookId, hung), eq(webhookDeliveries.attempts, 0)));
      expect(unsent.length).toBeGreaterThanOrEqual(150);
      expect(await attemptsOf(hung)).toBeLessThanOrEqual(50);
      // Never more than its first share of the slots at once.
      expect(mostOpen).toBeLessThanOrEqual(4);
      await expect
        .poll(async () => (await deliveryRow(id)).status, { timeout: 5_000 })
        .toBe('delivered');

      // Once its first attempts time out, A's endpoint backs off as a whole: what it has not
      // been sent waits for that attempt's retry (1 s on, on the test's clock, which stands
      // still), unclaimed, instead of taking slots.
      const retryAt = new Date(t.clock.now().getTime() + 1_000);
      await expect
        .poll(
          async () =>
            (
              await t.db
                .select({ id: webhookDeliveries.id })
                .from(webhookDeliveries)
                .where(
                  and(
                    eq(webhookDeliveries.webhookId, hung),
                    eq(webhookDeliveries.attempts, 0),
                    gt(webhookDeliveries.nextAttemptAt, t.clock.now()),
                  ),
                )
            ).length,
          { timeout: 10_000 },
        )
        .toBeGreaterThanOrEqual(150);
      await running.stop();
      const rows = await deliveriesTo(hung);
      expect(rows.map((row) => row.id).sort()).toEqual([...queued].sort());
      // Nothing left leased; every row pending, none due before that retry.
      expect(rows.every((row) => row.status === 'pending' && row.lockedUntil === null)).toBe(true);
      expect(rows.every((row) => row.nextAttemptAt.getTime() >= retryAt.getTime())).toBe(true);
      // Each attempt the endpoint saw is in the log, and none other.
      expect(await attemptsOf(hung)).toBe(hanging.paths.length);
    } finally {
      await running.stop();
    }
  });
});

describe('an endpoint that is silent once, then answers', () => {
  let owner: Tenant;
  beforeAll(async () => {
    owner = await createTenant(t.db, 'Pauses');
  });

  it('shrinks its share but keeps sending: only a second silence in a row backs it off', async () => {
    // Holds every request until the dispatcher gave up on one (its socket closes), then answers
    // those held and all that come after: one pause, as a loaded machine makes.
    const held: ServerResponse[] = [];
    let paused = true;
    const pausing = await startServer((request, response) => {
      if (!paused) return void response.writeHead(204).end();
      held.push(response);
      request.socket.once('close', () => {
        paused = false;
        for (const waiting of held.splice(0)) waiting.writeHead(204).end();
      });
    });
    const webhookId = await register(pausing.url, owner);
    const ids = await deliverMany(webhookId, 40);
    // A timeout long enough that only the pause, never a loaded machine, makes a send silent:
    // a second silence would rightly back the endpoint off, on a clock that stands still
    // (3 s was not enough while the whole suite loaded two cores).
    const running = dispatcherFor(t, undefined, 10_000);
    running.start(3_600_000);
    try {
      running.wake();
      // Those out when it paused timed out (their retries wait on the test's clock, which
      // stands still); every other delivery still goes out, none deferred.
      await expect
        .poll(
          async () => {
            const rows = await deliveriesTo(webhookId);
            return rows.filter((row) => row.status === 'delivered').length;
          },
          { timeout: 60_000 },
        )
        .toBeGreaterThanOrEqual(40 - 4);
    } finally {
      await running.stop();
    }
    const rows = await deliveriesTo(webhookId);
    expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
    const timedOut = rows.filter((row) => row.status !== 'delivered');
    // At most its first share was out when it paused, and each was tried once.
    expect(timedOut.length).toBeLessThanOrEqual(4);
    expect(timedOut.every((row) => row.attempts === 1 && row.lastStatusCode === null)).toBe(true);
    expect(rows.every((row) => row.attempts === 1 && row.lockedUntil === null)).toBe(true);
  }, 90_000);
});

describe('a stop with deliveries in flight', () => {
  let owner: Tenant;
  beforeAll(async () => {
    owner = await createTenant(t.db, 'Stops');
  });

  it('records what is out, hands back what waits, and a second dispatcher sends the rest once', async () => {
    const ids: string[] = [];
    // Answers each delivery 50 ms after it came, with its id noted.
    const paced = await startServer((request, response) => {
      ids.push(String(request.headers['x-service-delivery']));
      setTimeout(() => response.writeHead(204).end(), 50);
    });
    const webhookId = await register(paced.url, owner);
    const queued = await deliverMany(webhookId, 100);
    const first = patientDispatcher();
    first.start(3_600_000);
    first.wake();
    await expect.poll(() => ids.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    await first.stop();
    const sentByFirst = ids.length;
    expect(sentByFirst).toBeLessThan(100);
    const afterStop = await deliveriesTo(webhookId);
    // What went out is recorded; the rest is given back, attempt uncounted, lease released.
    expect(afterStop.map((row) => row.status).filter((s) => s === 'delivered')).toHaveLength(
      sentByFirst,
    );
    expect(afterStop.every((row) => row.lockedUntil === null)).toBe(true);
    const waiting = afterStop.filter((row) => row.status === 'pending');
    expect(waiting).toHaveLength(100 - sentByFirst);
    expect(waiting.every((row) => row.attempts === 0)).toBe(true);

    // Another process takes them at once: the test's clock stands still, far inside the lease
    // (LEASE_MS) the first dispatcher's claims were written with.
    expect(LEASE_MS).toBeGreaterThan(30_000);
    const second = patientDispatcher();
    second.start(3_600_000);
    try {
      second.wake();
      await expect
        .poll(
          async () =>
            (await deliveriesTo(webhookId)).filter((row) => row.status === 'delivered').length,
          { timeout: 20_000 },
        )
        .toBe(100);
    } finally {
      await second.stop();
    }
    const seen = counted(ids);
    expect([...seen.keys()].sort()).toEqual([...queued].sort());
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    const rows = await deliveriesTo(webhookId);
    expect(rows.every((row) => row.attempts === 1 && row.lockedUntil === null)).toBe(true);
    const logged = await t.db
      .select({ id: webhookAttempts.deliveryId })
      .from(webhookAttempts)
      .where(
        sql`${webhookAttempts.deliveryId} in (select id from webhook_deliveries where webhook_id = ${webhookId})`,
      );
    expect(logged).toHaveLength(100);
  });

  /**
   * A running dispatcher, a receiver, and a delivery to it written as a transaction writes one
   * under the lease the dispatcher granted, with the row the transaction hands over.
   */
  async function handedOver(dueInMs = 0) {
    const endpoint = await receiver();
    const webhookId = await register(endpoint.url, owner);
    const running = dispatcherFor(t);
    running.start(3_600_000);
    const now = t.clock.now();
    const lease = running.lease(now, 1);
    if (lease === null) throw new Error('no lease granted');
    const [written] = await t.db
      .insert(webhookDeliveries)
      .values({
        id: ulid(now.getTime()),
        webhookId,
        event: 'payment.confirmed',
        body: '{"event":"payment.confirmed"}',
        nextAttemptAt: new Date(now.getTime() + dueInMs),
        createdAt: now,
        lockedUntil: lease,
        attempts: 1,
      })
      .returning();
    const [hook] = await t.db.select().from(webhooks).where(eq(webhooks.id, webhookId));
    if (!written || !hook) throw new Error('nothing written');
    const row: Claimed = {
      id: written.id,
      webhook_id: webhookId,
      owner: owner.accountId,
      body: written.body,
      test: false,
      attempts: 1,
      created_ms: now.getTime(),
      leased_until_ms: lease.getTime(),
      url: hook.url,
      secret_sealed: hook.secretSealed,
      live: true,
      retry_backoff_seconds: null,
      retry_max_delay_seconds: null,
      retry_for_seconds: null,
    };
    return { endpoint, running, row };
  }

  it('gives back a delivery handed over after the stop, for the next dispatcher to send at once', async () => {
    // A transaction leases a row from the running dispatcher, and commits after it stopped.
    const { endpoint, running, row } = await handedOver();
    await running.stop();
    running.offer([row]);
    await running.stop(); // waits for the hand-back
    expect(await deliveryRow(row.id)).toMatchObject({ attempts: 0, lockedUntil: null });
    expect(endpoint.received).toHaveLength(0);
    expect(await dispatcherFor(t).runOnce()).toBe(1);
    const [received] = await endpoint.waitFor(1);
    expect(received?.headers['x-service-delivery']).toBe(row.id);
    expect(received?.headers['x-service-retry-count']).toBe('0');
  });

  it('sends no delivery whose lease could end before its attempt: it is given back unsent', async () => {
    // Due again only in an hour once given back, so that no claim takes it meanwhile.
    const { endpoint, running, row } = await handedOver(3_600_000);
    // It waited for a slot until less than an attempt's timeout of its lease was left.
    t.clock.advance(LEASE_MS - TIMEOUT_MS / 2);
    running.offer([row]);
    // Given back unsent (its attempt uncounted), not sent under the lease another may take.
    await expect
      .poll(async () => (await deliveryRow(row.id)).lockedUntil, { timeout: 5_000 })
      .toBeNull();
    expect(await deliveryRow(row.id)).toMatchObject({ attempts: 0, status: 'pending' });
    expect(endpoint.received).toHaveLength(0);
    await running.stop();
    expect(endpoint.received).toHaveLength(0);
  });

  it('claims a delivery it gave back as lapsing again at once, and sends it once', async () => {
    const { endpoint, running, row } = await handedOver();
    t.clock.advance(LEASE_MS - TIMEOUT_MS / 2);
    running.offer([row]);
    // Neither woken nor polled (its poll is an hour): claimed again once given back.
    const [received] = await endpoint.waitFor(1);
    expect(received?.headers['x-service-delivery']).toBe(row.id);
    expect(received?.headers['x-service-retry-count']).toBe('0');
    await running.stop();
    expect(await deliveryRow(row.id)).toMatchObject({ attempts: 1, status: 'delivered' });
    expect(await attemptLog(row.id)).toEqual([expect.objectContaining({ attempt: 1 })]);
    expect(endpoint.received).toHaveLength(1);
  });
});
