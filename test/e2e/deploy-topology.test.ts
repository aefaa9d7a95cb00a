import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveJsonRpc } from '../../src/sandbox/rpc-server.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createDestinationByCli } from '../process.ts';
import { startTopology, type Topology } from '../topology.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * compose.yaml's deployment works as written: its migrate, api-1, api-2 and worker services
 * run as real processes with the environment the file gives them (Postgres and Redis moved to
 * loopback), each waited for through the file's own healthcheck on /readyz. A link made through
 * one API process is read through the other; a payment on the chain is detected by the worker
 * and its webhooks reach a real receiver once each; both API processes draw on one rate-limit
 * budget in Redis; and a stopped process drains (/readyz 503, the rest serving) and exits 0.
 */

const source = inject('testDatabase');
const json = { 'content-type': 'application/json' };

describe.runIf(source.kind === 'postgres')('the compose topology as processes', () => {
  let local: StandIn;
  let rpc: { url: string; close(): Promise<void> };
  let topology: Topology;
  let receiver: Receiver;
  let apiKey: string;
  let accountId: string;
  let destinationId: string;

  beforeAll(async () => {
    local = await standIn('base');
    rpc = await serveJsonRpc(local.chain.provider);
    receiver = await startReceiver();
    topology = await startTopology({
      variables: { RPC_URL_BASE: rpc.url },
      overrides: {
        ...local.env,
        CONFIRMATIONS_BASE: '1',
        INDEXER_POLL_MS: '200',
        DISPATCHER_POLL_MS: '200',
        // NODE_ENV=production refuses receivers on private addresses; the test's is on loopback.
        ALLOW_LOCAL_WEBHOOKS: 'true',
        // compose.yaml's 5 s, made longer so that the drain's checks fit in it on a busy machine.
        SHUTDOWN_DRAIN_MS: '15000',
      },
    });
    const env = topology.env('api-1');
    const account = await topology.cli('api-1', [
      'account',
      'create',
      '--name',
      'Deployed',
      '--json',
    ]);
    expect(account.code, account.stderr).toBe(0);
    ({ apiKey, accountId } = JSON.parse(account.stdout) as { apiKey: string; accountId: string });
    destinationId = await createDestinationByCli(env, {
      accountId,
      address: accountOf(local.chain, 1).address,
      currency: 'USDC-base',
    });
  }, 300_000);
  afterAll(async () => {
    await topology?.close();
    await receiver?.close();
    await rpc?.close();
    await local?.chain.close();
  });

  it('runs migrate once, then api-1, api-2 and worker, each ready', async () => {
    const { services } = topology.compose;
    expect(services.postgres?.image).toMatch(/^postgres:\d+$/);
    expect(services.redis?.image).toMatch(/^redis:\d+$/);
    for (const name of ['api-1', 'api-2', 'worker']) {
      const service = services[name];
      // The healthcheck asks readiness, and the orchestrator waits longer than payreq's budget.
      expect(service?.healthcheck?.test.join(' ')).toContain('/readyz');
      expect(Number(service?.environment?.SHUTDOWN_TIMEOUT_MS)).toBeLessThan(
        Number.parseInt(`${service?.stop_grace_period}`, 10) * 1_000,
      );
    }
    expect([...topology.servers.keys()].sort()).toEqual(['api-1', 'api-2', 'worker']);
    expect(topology.env('api-1').WORKERS).toBe('false');
    expect(topology.env('worker').WORKERS).toBe('true');
    const [migrations] = await topology.query<{ count: string }>(
      'select count(*) from drizzle.__drizzle_migrations',
    );
    expect(Number(migrations?.count)).toBeGreaterThan(0);
    for (const server of topology.servers.values()) {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    }
  });

  it('reads through api-2 a link created through api-1, and the worker delivers its payment once', async () => {
    const api1 = topology.server('api-1').url;
    const api2 = topology.server('api-2').url;
    const headers = { ...json, 'x-api-key': apiKey };
    const registered = await fetch(`${api1}/v1/webhook`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(registered.status).toBe(201);
    receiver.verifyWith(((await registered.json()) as { secret: string }).secret);

    const created = await fetch(`${api1}/v2/secure-payments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ requests: [{ destinationId, amount: '3' }] }),
    });
    expect(created.status).toBe(201);
    const { token, requestIds } = (await created.json()) as {
      token: string;
      requestIds: string[];
    };
    const read = await fetch(`${api2}/v2/secure-payments/${token}`, { headers });
    expect(read.status).toBe(200);
    const requestId = requestIds[0];

    const payer = accountOf(local.chain, 0);
    const pay = await fetch(`${api2}/v2/secure-payments/${token}/pay?wallet=${payer.address}`, {
      headers,
    });
    expect(pay.status).toBe(200);
    await sendAll(local.chain, payer, ((await pay.json()) as { transactions: [] }).transactions);
    await local.chain.provider.request({ method: 'evm_mine' });

    // Only the worker runs indexers and the dispatcher: the API processes have WORKERS=false.
    const received = await receiver.waitFor(2, 60_000);
    expect(received.map((r) => r.body.event).sort()).toEqual([
      'payment.confirmed',
      'payment.confirmed.checkout',
    ]);
    expect(received.every((r) => r.body.requestId === requestId)).toBe(true);
    const status = await fetch(`${api1}/v2/request/${requestId}`, { headers });
    expect(await status.json()).toMatchObject({ status: 'paid', totalAmountPaid: '3' });
    // Once each: a few more dispatcher and indexer rounds send nothing more.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(2);
    const payments = await topology.query<{ count: string }>('select count(*) from payments');
    expect(Number(payments[0]?.count)).toBe(1);
    const deliveries = await topology.query<{ status: string; count: string }>(
      'select status, count(*) from webhook_deliveries group by status',
    );
    expect(deliveries).toEqual([{ status: 'delivered', count: '2' }]);
  }, 120_000);

  it('shares one rate-limit budget between api-1 and api-2 through Redis', async () => {
    const created = await topology.cli('api-1', [
      'client-id',
      'create',
      '--account',
      accountId,
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const { clientId } = JSON.parse(created.stdout) as { clientId: string };
    const urls = [topology.server('api-1').url, topology.server('api-2').url];
    const statuses: number[] = [];
    for (let i = 0; i < 301; i++) {
      const answer = await fetch(`${urls[i % 2]}/v2/currencies?id=USDC-base`, {
        headers: { 'x-client-id': clientId },
      });
      statuses.push(answer.status);
    }
    expect(statuses.slice(0, 300).every((status) => status === 200)).toBe(true);
    expect(statuses[300]).toBe(429);
  }, 90_000);

  it('drains a stopped API process: /readyz 503 while it still serves, then exit 0', async () => {
    const api2 = topology.server('api-2');
    const exited = api2.stop('SIGTERM');
    await expect
      .poll(async () => (await fetch(`${api2.url}/readyz`)).status, {
        timeout: 4_000,
        interval: 50,
      })
      .toBe(503);
    const readiness = await fetch(`${api2.url}/readyz`);
    expect(await readiness.json()).toMatchObject({ code: 'shutting_down', status: 'not_ready' });
    // Requests still reaching it meanwhile are served.
    expect((await fetch(`${api2.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${api2.url}/v2/currencies?id=USDC-base`)).status).toBe(200);
    expect(await exited).toBe(0);
    await expect(fetch(`${api2.url}/healthz`)).rejects.toThrow();
    // The other API process serves on.
    expect((await fetch(`${topology.server('api-1').url}/readyz`)).status).toBe(200);
  }, 60_000);
});
