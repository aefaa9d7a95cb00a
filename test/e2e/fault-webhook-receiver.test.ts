import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, createAccountByCli, suiteDatabase, until } from '../faults.ts';
import { type Arrival, type FlakyReceiver, startFlakyReceiver } from '../flaky-receiver.ts';
import { processEnv, type ServerProcess, startServer } from '../process.ts';

/**
 * A merchant's receiver that for a while answers too late, then cuts connections, then answers
 * 500, and then recovers: a payreq process (on the suite's database) retries each delivery on
 * the documented schedule (docs/webhooks.md: 1 s, 5 s and 15 s after the first three failures)
 * until it is answered, loses none, sends none twice once answered, and its delivery log (the
 * database's rows) says delivered with every attempt counted. The schedule runs in real time:
 * its first three retries take 21 s, and the receiver recovers just before the fourth attempt.
 */

const source = inject('testDatabase');
const DELIVERIES = 4;
/**
 * Long enough that all four deliveries are out before the first times out, on a loaded machine
 * too: after two silences in a row an endpoint backs off, deferring deliveries not yet tried.
 */
const TIMEOUT_MS = 2_000;
/** The reference's first three retry delays, after each failure (src/webhooks/dispatcher.ts). */
const SCHEDULE_MS = [1_000, 5_000, 15_000];
/** How late a retry may come: the dispatcher's poll (100 ms) and the attempt's own time. */
const LATE_MS = 2_500;
const EVENTS = ['payment.confirmed', 'payment.partial', 'request.recurring', 'payment.failed'];

const cleanup: (() => Promise<void>)[] = [];
let server: ServerProcess | undefined;
let receiver: FlakyReceiver | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
  for (const step of cleanup.reverse()) await step();
});

interface LoggedDelivery {
  readonly id: string;
  readonly status: string;
  readonly attempts: number;
  readonly attemptLog: readonly { attempt: number; statusCode: number | null }[];
}

/** The process, its account and the registered receiver: set up before the clock runs. */
async function setUp() {
  const flaky = await startFlakyReceiver({ slowMs: TIMEOUT_MS * 4 });
  receiver = flaky;
  const env = processEnv(
    {
      ...(await suiteDatabase(cleanup)),
      ALLOW_LOCAL_WEBHOOKS: 'true',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      DISPATCHER_POLL_MS: '100',
    },
    { migrated: true },
  );
  const account = await createAccountByCli(env, 'Flaky receiver');
  server = await startServer(env, { timeoutMs: 150_000 });
  const base = server.url;
  const registered = await call(base, account.apiKey, '/v1/webhook', {
    body: { url: flaky.url },
  });
  expect(registered.status).toBe(201);
  const webhookId = (registered.body as { id: string }).id;
  return { receiver: flaky, base, account, webhookId };
}

describe(`a webhook receiver slow, dropping, failing, then back (${source.kind})`, () => {
  let world: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    world = await setUp();
  }, 240_000);

  it('delivers every event once it recovers, on the documented schedule', async () => {
    const { receiver, base, account, webhookId } = world;

    // Slow first: each first attempt times out.
    receiver.set('slow');
    const ids: string[] = [];
    const sent = await Promise.all(
      EVENTS.slice(0, DELIVERIES).map((eventType) =>
        call(base, account.apiKey, '/v1/webhook/test', { body: { eventType } }),
      ),
    );
    for (const answer of sent) {
      expect(answer.status).toBe(201);
      ids.push(...(answer.body as { deliveryIds: string[] }).deliveryIds);
    }
    expect(new Set(ids).size).toBe(DELIVERIES);

    // Each phase lasts until every delivery has met it once, whatever the machine's speed.
    const reach = async (retryCount: number) => {
      await until(
        `every delivery's attempt ${retryCount}`,
        async () => receiver.arrivals.filter((a) => a.retryCount === retryCount).length,
        (count) => count >= DELIVERIES,
        SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0) + 10_000,
      );
    };
    await reach(0);
    receiver.set('drop');
    await reach(1);
    receiver.set('error');
    await reach(2);
    receiver.set('ok');
    await receiver.waitForDelivered(DELIVERIES, 30_000);

    // Each delivery: four attempts, one per fault and the last answered, on the schedule.
    const byId = Map.groupBy(receiver.arrivals, (arrival) => arrival.deliveryId);
    expect([...byId.keys()].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const arrivals = byId.get(id) ?? [];
      expect(arrivals.map((a) => [a.retryCount, a.mode])).toEqual([
        [0, 'slow'],
        [1, 'drop'],
        [2, 'error'],
        [3, 'ok'],
      ]);
      expectOnSchedule(arrivals);
    }

    // The delivery log agrees: delivered, four attempts, the answers each met.
    const log = await until(
      'the delivery log',
      () => call(base, account.apiKey, `/v1/webhook/${webhookId}/deliveries?limit=100`),
      (answer) =>
        (answer.body as { deliveries: LoggedDelivery[] }).deliveries.filter(
          (d) => d.status === 'delivered',
        ).length === DELIVERIES,
      5_000,
    );
    const deliveries = (log.body as { deliveries: LoggedDelivery[] }).deliveries;
    expect(deliveries).toHaveLength(DELIVERIES);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: 'delivered', attempts: 4 });
      const statuses = [...delivery.attemptLog]
        .sort((a, b) => a.attempt - b.attempt)
        .map((a) => a.statusCode);
      expect(statuses).toEqual([null, null, 500, 200]);
    }

    // Nothing more comes once every delivery was answered: none is sent twice.
    const seen = receiver.arrivals.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.arrivals).toHaveLength(seen);
    expect(seen).toBe(DELIVERIES * 4);
  }, 60_000);
});

/**
 * Each retry comes no earlier than its delay after the attempt it follows, and not much later
 * than that delay after the attempt failed (a timed-out one fails at the timeout, the others
 * at once). Measured between arrivals, so a slow hop to the receiver cannot shorten a gap.
 */
function expectOnSchedule(arrivals: readonly Arrival[]): void {
  for (const [index, delay] of SCHEDULE_MS.entries()) {
    const before = arrivals[index];
    const after = arrivals[index + 1];
    if (!before || !after) throw new Error('missing attempt');
    const gap = after.at - before.at;
    const failedAfter = before.mode === 'slow' ? TIMEOUT_MS : 0;
    expect(gap, `retry ${index + 1}`).toBeGreaterThanOrEqual(delay);
    expect(gap, `retry ${index + 1}`).toBeLessThan(failedAfter + delay + LATE_MS);
  }
}
