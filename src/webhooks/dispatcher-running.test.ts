import type { ServerResponse } from 'node:http';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  attemptLog,
  deliver,
  deliveriesTo,
  deliverMany,
  deliveryRow,
  dispatcherFor,
  patientDispatcher,
  receiver,
  register,
  type Server,
  setupDispatcherApps,
  startServer,
  t,
} from '../../test/dispatcher.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { queryRows } from '../db/client.ts';
import { createDispatcher } from './dispatcher.ts';

/**
 * A started dispatcher against real loopback servers (test/dispatcher.ts): woken during a round,
 * its sends in flight capped, their outcomes recorded in batches, and stop waiting for them.
 */

setupDispatcherApps();

/** A receiver that holds every request until released. */
async function heldServer(): Promise<{ slow: Server; release: () => void }> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow = await startServer((_request, response) => {
    void held.then(() => response.writeHead(200).end());
  });
  return { slow, release };
}

describe('a running dispatcher', () => {
  // Its own account: its endpoints never count against the shared tenant's 20.
  let owner: Tenant;
  beforeAll(async () => {
    owner = await createTenant(t.db);
  });

  it('answers a wake that comes during a round with another round, not the next poll', async () => {
    const { slow, release } = await heldServer();
    const endpoint = await receiver();
    const running = dispatcherFor(t);
    // Polls an hour apart: only a wake can bring the second delivery out in this test.
    running.start(3_600_000);
    try {
      await deliver(await register(slow.url, owner));
      running.wake();
      await expect.poll(() => slow.paths.length).toBe(1);
      // Enqueued while the round is in flight, as a payment recorded meanwhile would be.
      const second = await deliver(await register(endpoint.url, owner));
      running.wake();
      release();
      const [received] = await endpoint.waitFor(1, 5_000);
      expect(received?.headers['x-service-delivery']).toBe(second);
    } finally {
      release();
      await running.stop();
    }
  });

  it('keeps at most 20 sends in flight, and a held receiver holds one slot, not a round', async () => {
    const { slow, release } = await heldServer();
    let open = 0;
    let mostOpen = 0;
    const paced = await startServer((_request, response) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open -= 1;
        response.writeHead(204).end();
      }, 15);
    });
    const running = patientDispatcher();
    running.start(3_600_000);
    try {
      await deliver(await register(slow.url, owner));
      running.wake();
      await expect.poll(() => slow.paths.length).toBe(1);
      const pacedHook = await register(paced.url, owner);
      const ids = await deliverMany(pacedHook, 60);
      running.wake();
      // All 60 go out while the first receiver still holds its request.
      await expect.poll(() => paced.paths.length, { timeout: 10_000 }).toBe(60);
      expect(mostOpen).toBeLessThanOrEqual(19);
      expect(mostOpen).toBeGreaterThan(1);
      release();
      await running.stop();
      const rows = await deliveriesTo(pacedHook);
      expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
      expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
      expect(rows.every((row) => row.lockedUntil === null && row.lastStatusCode === 204)).toBe(
        true,
      );
      const logged = await Promise.all(ids.map((id) => attemptLog(id)));
      expect(logged.every((log) => log.length === 1 && log[0]?.statusCode === 204)).toBe(true);
    } finally {
      release();
      await running.stop();
    }
  });

  it('records the rounds of sends that finish together in batches, not one statement each', async () => {
    // Answers in rounds: nothing until 4 requests wait (an endpoint's first share of the
    // slots), then all of them at once; the last few after a moment.
    const waiting: ServerResponse[] = [];
    let timer: NodeJS.Timeout | undefined;
    let answered = 0;
    const answer = () => {
      clearTimeout(timer);
      timer = undefined;
      answered += 1;
      for (const held of waiting.splice(0)) held.writeHead(204).end();
    };
    const rounds = await startServer((_request, response) => {
      waiting.push(response);
      if (waiting.length >= 4) answer();
      else timer ??= setTimeout(answer, 20);
    });
    const webhookId = await register(rounds.url, owner);
    const running = patientDispatcher();
    running.start(3_600_000);
    try {
      await deliverMany(webhookId, 200);
      running.wake();
      await expect.poll(() => rounds.paths.length, { timeout: 10_000 }).toBe(200);
    } finally {
      await running.stop();
    }
    const rows = await deliveriesTo(webhookId);
    expect(rows.every((row) => row.status === 'delivered' && row.lockedUntil === null)).toBe(true);
    // A row's xmin is the transaction that last wrote it: the statement recording its attempt.
    // Recorded round by round, these were a statement per round (at least fifty: a round holds
    // at most 4). While the queue feeds sends, rounds wait for each other up to a batch of 100
    // (or 100 ms, so how many statements depends on the machine's speed). Around them: a first
    // round may be recorded alone (it finished before the next claim came back), and at the
    // burst's end what finishes is recorded at once, in pieces as it comes.
    const statements = await queryRows<{ rows: number }>(
      t.db,
      sql`select count(*)::integer as rows from webhook_deliveries
          where webhook_id = ${webhookId} group by xmin::text order by rows desc`,
    );
    expect(answered).toBeGreaterThanOrEqual(50);
    expect(statements.length).toBeLessThanOrEqual(answered / 4);
    expect(statements[0]?.rows).toBeGreaterThanOrEqual(40);
  });

  it('records finished sends within a moment while a held receiver keeps its slot', async () => {
    const { slow, release } = await heldServer();
    const endpoint = await receiver();
    // Sends wait this long for an answer: the held one stays out for the whole test.
    const running = createDispatcher({
      db: t.database.queue,
      clock: t.clock,
      logger: t.app.log as never,
      secretBox: t.secretBox,
      config: { ...t.config.webhooks, timeoutMs: 60_000 },
    });
    running.start(3_600_000);
    try {
      const held = await deliver(await register(slow.url, owner));
      const fast = await deliverMany(await register(endpoint.url, owner), 5);
      running.wake();
      await expect.poll(() => slow.paths.length).toBe(1);
      // Five finished, one still out and far fewer than a batch: recorded after the wait.
      await expect
        .poll(
          async () => (await Promise.all(fast.map((id) => deliveryRow(id)))).map((r) => r.status),
          {
            timeout: 5_000,
          },
        )
        .toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
      const out = await deliveryRow(held);
      expect(out.status).toBe('pending');
      expect(out.lockedUntil).not.toBeNull();
      expect(out.lastStatusCode).toBeNull();
      release();
      await running.stop();
      expect((await deliveryRow(held)).status).toBe('delivered');
    } finally {
      release();
      await running.stop();
    }
  });

  it('records what was in flight before stop resolves', async () => {
    const endpoint = await receiver();
    const webhookId = await register(endpoint.url, owner);
    const running = dispatcherFor(t);
    running.start(3_600_000);
    const ids = await deliverMany(webhookId, 25);
    running.wake();
    await expect.poll(() => endpoint.received.length).toBeGreaterThan(0);
    await running.stop();
    const rows = await deliveriesTo(webhookId);
    // Whatever was claimed is settled; nothing is left leased.
    const claimed = rows.filter((row) => row.attempts > 0);
    expect(claimed.length).toBe(endpoint.received.length);
    expect(claimed.every((row) => row.status === 'delivered' && row.lockedUntil === null)).toBe(
      true,
    );
    expect(rows.map((row) => row.id).sort()).toEqual([...ids].sort());
  });
});
