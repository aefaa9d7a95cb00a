import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDestinationByCli, type ServerProcess } from '../process.ts';
import { startTopology, type Topology } from '../topology.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * Redis killed under traffic, in compose.yaml's topology run as processes with a redis-server
 * of the test's own: the rate limits fail open as documented (REDIS_URL in
 * docs/guides/configuration.md: requests are allowed, a warning logged), and nothing else
 * fails: every link creation is answered 201 and is in the database, each is read through the
 * other API process, /readyz stays 200, and every test webhook reaches the receiver once. Redis
 * back (a new, empty one on the same port), both processes share one budget again.
 */

const source = inject('testDatabase');
/** A small client-ID budget, so that being over it (or not) takes few requests. */
const BUDGET = 20;
const LINKS = 60;
const WEBHOOK_EVENTS = 10;

describe.runIf(source.kind === 'postgres')('Redis down under traffic', () => {
  let topology: Topology;
  let receiver: Receiver;
  let apiKey: string;
  let destinationId: string;
  const clientIds: string[] = [];
  let apis: ServerProcess[];

  beforeAll(async () => {
    receiver = await startReceiver();
    topology = await startTopology({
      overrides: {
        RATE_LIMIT_CLIENT_ID: String(BUDGET),
        DISPATCHER_POLL_MS: '200',
        ALLOW_LOCAL_WEBHOOKS: 'true',
      },
    });
    apis = [topology.server('api-1'), topology.server('api-2')];
    const account = await topology.cli('api-1', ['account', 'create', '--name', 'R', '--json']);
    expect(account.code, account.stderr).toBe(0);
    const created = JSON.parse(account.stdout) as { apiKey: string; accountId: string };
    apiKey = created.apiKey;
    destinationId = await createDestinationByCli(topology.env('api-1'), {
      accountId: created.accountId,
      address: '0x1111111111111111111111111111111111111111',
      currency: 'USDC-base',
    });
    for (let i = 0; i < 3; i++) {
      const args = ['client-id', 'create', '--account', created.accountId, '--json'];
      const clientId = await topology.cli('api-1', args);
      expect(clientId.code, clientId.stderr).toBe(0);
      clientIds.push((JSON.parse(clientId.stdout) as { clientId: string }).clientId);
    }
    const registered = await fetch(`${apis[0]?.url}/v1/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(registered.status).toBe(201);
    receiver.verifyWith(((await registered.json()) as { secret: string }).secret);
  }, 300_000);
  afterAll(async () => {
    await topology?.close();
    await receiver?.close();
  });

  /** `count` client-ID requests, alternating between the two API processes. */
  async function clientIdStatuses(clientId: string, count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const answer = await fetch(`${apis[i % 2]?.url}/v2/currencies?id=USDC-base`, {
        headers: { 'x-client-id': clientId },
      });
      statuses.push(answer.status);
    }
    return statuses;
  }
  const sharedBudget = (statuses: number[]) => [
    statuses.slice(0, BUDGET).every((status) => status === 200),
    statuses[BUDGET],
  ];

  it('limits across both processes, fails open while Redis is down, and limits again once it is back', async () => {
    const [limited, overBudget] = clientIds;
    expect(sharedBudget(await clientIdStatuses(`${limited}`, BUDGET + 1))).toEqual([true, 429]);

    // Links created with four at a time in flight; Redis is killed once ten are answered.
    const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
    const answers: { status: number; token?: string; via: number }[] = [];
    let next = 0;
    let killed: Promise<void> | undefined;
    const createLinks = async () => {
      while (next < LINKS) {
        const via = next++ % 2;
        const response = await fetch(`${apis[via]?.url}/v2/secure-payments`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ requests: [{ destinationId, amount: '1' }] }),
        });
        const body = (await response.json()) as { token?: string };
        answers.push({ status: response.status, via, ...(body.token && { token: body.token }) });
        if (answers.length === 10) killed ??= topology.redis.kill();
      }
    };
    await Promise.all([createLinks(), createLinks(), createLinks(), createLinks()]);
    await killed;

    // Redis is down: over its budget, the client ID is served all the same (fail-open).
    expect(await clientIdStatuses(`${limited}`, 10)).toEqual(Array(10).fill(200));
    // Everything else answers as ever.
    expect(answers.map((a) => a.status)).toEqual(Array(LINKS).fill(201));
    const [rows] = await topology.query<{ count: string }>('select count(*) from secure_payments');
    expect(Number(rows?.count)).toBe(LINKS);
    for (const answer of answers) {
      const read = await fetch(`${apis[1 - answer.via]?.url}/v2/secure-payments/${answer.token}`, {
        headers,
      });
      expect(read.status).toBe(200);
    }
    for (const api of apis) expect((await fetch(`${api.url}/readyz`)).status).toBe(200);
    const deliveryIds: string[] = [];
    for (let i = 0; i < WEBHOOK_EVENTS; i++) {
      const sent = await fetch(`${apis[i % 2]?.url}/v1/webhook/test`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ eventType: 'payment.confirmed' }),
      });
      expect(sent.status).toBe(201);
      deliveryIds.push(...((await sent.json()) as { deliveryIds: string[] }).deliveryIds);
    }
    expect(deliveryIds).toHaveLength(WEBHOOK_EVENTS);
    const received = await receiver.waitFor(WEBHOOK_EVENTS, 60_000);
    expect(received.map((r) => r.headers['x-service-delivery']).sort()).toEqual(
      [...deliveryIds].sort(),
    );
    for (const api of apis) {
      expect(api.output()).toContain(
        'rate limiter: Redis unavailable, allowing requests unlimited until it answers',
      );
    }

    // Redis back, empty: each process reconnects and says so; then one budget between them.
    await topology.redis.restart();
    for (const api of apis) {
      await expect
        .poll(
          async () => {
            await fetch(`${api.url}/v2/currencies?id=USDC-base`, {
              headers: { 'x-client-id': `${clientIds[2]}` },
            });
            return api.output().includes('rate limiter: Redis answers again');
          },
          { timeout: 15_000, interval: 200 },
        )
        .toBe(true);
    }
    expect(sharedBudget(await clientIdStatuses(`${overBudget}`, BUDGET + 1))).toEqual([true, 429]);
    // Nothing was sent twice meanwhile.
    expect(receiver.received).toHaveLength(WEBHOOK_EVENTS);
    const delivered = await topology.query<{ count: string }>(
      "select count(*) from webhook_deliveries where status = 'delivered'",
    );
    expect(Number(delivered[0]?.count)).toBe(WEBHOOK_EVENTS);
  }, 240_000);
});
