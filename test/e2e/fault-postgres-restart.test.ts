import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { serveJsonRpc } from '../../src/sandbox/rpc-server.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { call, createAccountByCli, until } from '../faults.ts';
import { type OwnPostgres, postgresBin, startOwnPostgres } from '../own-postgres.ts';
import { createDestinationByCli, processEnv, type ServerProcess, startServer } from '../process.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * Postgres restarts under a payreq process that is creating links and detecting payments: the
 * test's own Postgres server (test/own-postgres.ts) is stopped, every connection cut, and
 * started again while a client keeps creating links and a payer keeps paying on the chain.
 * Afterwards every link answered 2xx is in the database, every payment is recorded once and its
 * webhook delivered once, and the same process is ready again without a restart; during the
 * outage the API answered 503 at once rather than hang or fail with a 500.
 *
 * Postgres only, by nature, and needing the server's binaries (Debian's, as in CI's image): it
 * skips where there are none. Its process never reads the suite's DATABASE_URL, so it runs in
 * the first pass only (vitest.config.ts: SAME_ON_EVERY_DATABASE).
 */

const PAYMENTS = 6;
/** Between two link creations and two payments, so both go on through the outage. */
const CREATE_EVERY_MS = 30;
const PAY_EVERY_MS = 300;
/** How long Postgres stays down, and how long creation goes on on each side of it. */
const OUTAGE_MS = 2_000;
const AROUND_MS = 1_500;
/** An answer during the outage comes at once: a refused connection is not waited on. */
const ANSWER_BOUND_MS = 5_000;

let postgres: OwnPostgres | undefined;
let local: StandIn | undefined;
let rpc: { url: string; close(): Promise<void> } | undefined;
let server: ServerProcess | undefined;
let receiver: Receiver | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  await receiver?.close();
  await rpc?.close();
  await local?.chain.close();
  await postgres?.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function setUp() {
  postgres = await startOwnPostgres();
  local = await standIn('base');
  const chain = local.chain;
  rpc = await serveJsonRpc(chain.provider);
  const hooks = await startReceiver();
  receiver = hooks;
  const env = processEnv({
    ...local.env,
    DATABASE_URL: postgres.url,
    RPC_URL_BASE: rpc.url,
    CONFIRMATIONS_BASE: '0',
    INDEXER_POLL_MS: '100',
    DISPATCHER_POLL_MS: '100',
    ALLOW_LOCAL_WEBHOOKS: 'true',
  });
  const account = await createAccountByCli(env, 'Postgres restart');
  const destinationId = await createDestinationByCli(env, {
    accountId: account.accountId,
    address: accountOf(chain, 1).address,
    currency: 'USDC-base',
  });
  server = await startServer(env, { timeoutMs: 150_000 });
  const base = server.url;
  const api = (path: string, body?: unknown) =>
    call(base, account.apiKey, path, body === undefined ? {} : { body });
  const registered = await api('/v1/webhook', { url: hooks.url });
  expect(registered.status).toBe(201);
  hooks.verifyWith((registered.body as { secret: string }).secret);

  // The links the payer pays during the test, and their calldata, made beforehand.
  const payer = accountOf(chain, 2);
  const links: { requestId: string; transactions: EvmTransaction[] }[] = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const created = await api('/v2/secure-payments', {
      requests: [{ destinationId, amount: `${i + 1}` }],
    });
    const { token, requestIds } = created.body as { token: string; requestIds: string[] };
    const pay = await api(`/v2/secure-payments/${token}/pay?wallet=${payer.address}`);
    const { transactions } = pay.body as { transactions: EvmTransaction[] };
    links.push({ requestId: requestIds[0] as string, transactions });
  }
  return { chain, payer, links, api, account, destinationId, base };
}

describe.runIf(postgresBin() !== null)('Postgres restarted under load', () => {
  let world: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    world = await setUp();
  }, 240_000);

  it('keeps every accepted link, misses no payment, sends each webhook once', async () => {
    const { chain, payer, links, api, account, destinationId, base } = world;
    const own = postgres as OwnPostgres;
    const hooks = receiver as Receiver;

    // A client creating links one after another, for as long as the test runs.
    const answers: { status: number; token: string | null; code: unknown; ms: number }[] = [];
    let creating = true;
    const creation = (async () => {
      while (creating) {
        const answer = await api('/v2/secure-payments', {
          requests: [{ destinationId, amount: '0.5' }],
        });
        const body = answer.body as { token?: string; code?: unknown };
        answers.push({
          status: answer.status,
          token: answer.status < 300 ? (body.token ?? null) : null,
          code: body.code,
          ms: answer.ms,
        });
        await sleep(CREATE_EVERY_MS);
      }
    })();
    // A payer paying the prepared links one after another, on the chain.
    const payments = (async () => {
      for (const link of links) {
        await sendAll(chain, payer, link.transactions);
        await sleep(PAY_EVERY_MS);
      }
    })();

    await sleep(AROUND_MS);
    await own.stop();
    await sleep(OUTAGE_MS);
    await own.start();
    await sleep(AROUND_MS);
    creating = false;
    await Promise.all([creation, payments]);

    // The same process is ready again: its pools found the server back by themselves.
    await until(
      'readiness',
      () => fetch(`${base}/readyz`).then((r) => r.status),
      (status) => status === 200,
      15_000,
    );
    expect(server?.child.exitCode).toBe(null);

    // During the outage: 503s, at once; never a 500, never a hang.
    const refused = answers.filter((a) => a.status >= 300);
    const accepted = answers.filter((a) => a.status < 300);
    expect(refused.length, 'answers met the outage').toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(0);
    for (const answer of refused) expect(answer).toMatchObject({ status: 503 });
    for (const answer of answers) expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(accepted.every((a) => a.status === 201 && a.token !== null)).toBe(true);

    // Every payment detected, each once.
    for (const [i, link] of links.entries()) {
      const answer = await until(
        `payment ${i + 1}`,
        () => api(`/v2/request/${link.requestId}`),
        (r) => (r.body as { status?: string }).status === 'paid',
        20_000,
      );
      expect(answer.body).toMatchObject({ totalAmountPaid: `${i + 1}` });
    }
    await until(
      'the payment webhooks',
      async () => hooks.received.filter((r) => r.body.event === 'payment.confirmed').length,
      (count) => count >= PAYMENTS,
      20_000,
    );

    // The database's own count of what the process wrote.
    const client = new pg.Client({ connectionString: own.url });
    await client.connect();
    try {
      const tokens = accepted.map((a) => a.token);
      const links = await client.query<{ count: string }>(
        'select count(*) from secure_payments where token = any($1)',
        [tokens],
      );
      expect(Number(links.rows[0]?.count)).toBe(accepted.length);
      const paid = await client.query<{ count: string }>(
        'select count(*) from payments where account_id = $1',
        [account.accountId],
      );
      expect(Number(paid.rows[0]?.count)).toBe(PAYMENTS);
      // Let anything sent twice arrive before the deliveries are compared.
      await sleep(1_000);
      const deliveries = await client.query<{ id: string; event: string; status: string }>(
        'select id, event, status from webhook_deliveries',
      );
      const confirmed = deliveries.rows.filter((d) => d.event === 'payment.confirmed');
      expect(confirmed).toHaveLength(PAYMENTS);
      expect(deliveries.rows.every((d) => d.status === 'delivered')).toBe(true);
      const received = hooks.received.map((r) => String(r.headers['x-request-network-delivery']));
      expect(received.sort()).toEqual(deliveries.rows.map((d) => d.id).sort());
    } finally {
      await client.end();
    }
  }, 60_000);
});
