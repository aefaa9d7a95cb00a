import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openPostgres } from '../../src/db/postgres.ts';
import { requests } from '../../src/db/schema.ts';
import { serveJsonRpc } from '../../src/sandbox/rpc-server.ts';
import { type StandIn, standIn } from '../chain.ts';
import { emptyPostgresDatabase } from '../database.ts';
import { processEnv, runCli, type ServerProcess, startServer } from '../process.ts';

/**
 * Issue 38's test of `Idempotency-Key`: two real server processes on one Postgres, 50 clients
 * sending one `POST /v2/payouts` with one key at once, split across both. Each client retries
 * a 409 after its Retry-After, as a client should; in the end every client holds the same
 * answer, and there is exactly one payout. The key's answer outlives both processes.
 */

const source = inject('testDatabase');
const CLIENTS = 50;
const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
/** Bounds a client's retries of 409, so a key that never frees fails the test, not hangs it. */
const MAX_TRIES = 20;
/** A start on a machine this busy can take a while (the suite shares two cores). */
const START_MS = 120_000;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly replayed: boolean;
}

const cleanup: (() => Promise<unknown>)[] = [];
const servers: ServerProcess[] = [];

afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL');
  for (const step of cleanup.reverse()) await step();
});

async function send(url: string, apiKey: string, key: string, body: unknown): Promise<Answer> {
  const res = await fetch(`${url}/v2/payouts`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'idempotency-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: await res.text(),
    replayed: res.headers.get('idempotent-replayed') === 'true',
  };
}

/**
 * Sends until the answer is neither a 409 nor a 5xx (a 5xx released the key: a client retries
 * it with the same key), waiting a second between tries; every answer seen, in order.
 */
async function sendUntilAnswered(
  url: string,
  apiKey: string,
  key: string,
  body: unknown,
): Promise<Answer[]> {
  const seen: Answer[] = [];
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const answer = await send(url, apiKey, key, body);
    seen.push(answer);
    if (answer.status !== 409 && answer.status < 500) return seen;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return seen;
}

describe.runIf(source.kind === 'postgres')('Idempotency-Key across two processes', () => {
  let local: StandIn;

  it('creates one payout for 50 concurrent retries, answers all alike, and replays after a restart', async () => {
    local = await standIn('base');
    cleanup.push(() => local.chain.close());
    const rpc = await serveJsonRpc(local.chain.provider);
    cleanup.push(rpc.close);
    const database = await emptyPostgresDatabase();
    cleanup.push(database.drop);
    const shared = {
      ...local.env,
      RPC_URL_BASE: rpc.url,
      DATABASE_URL: database.url,
      SECRET_KEY: randomBytes(32).toString('hex'),
      WORKERS: 'false',
    };
    const env = [processEnv(shared), processEnv(shared)] as const;
    const created = await runCli(['account', 'create', '--name', 'Retrier', '--json'], env[0]);
    expect(created.code, created.stderr).toBe(0);
    const { accountId, apiKey } = JSON.parse(created.stdout) as {
      accountId: string;
      apiKey: string;
    };
    servers.push(...(await Promise.all(env.map((e) => startServer(e, { timeoutMs: START_MS })))));
    const urls = servers.map((server) => server.url);

    const key = `payout-${randomBytes(8).toString('hex')}`;
    const body = {
      payee: PAYEE,
      amount: '10',
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
    };
    const runs = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        sendUntilAnswered(urls[i % 2] as string, apiKey, key, body),
      ),
    );
    const finals = runs.map((seen) => seen.at(-1) as Answer);
    const seen = runs.flat().map((answer) => `${answer.status}${answer.replayed ? 'r' : ''}`);
    const first = finals.find((answer) => !answer.replayed);
    expect(first?.status, first?.body).toBe(201);
    // One client ran the request; every other one got its answer replayed, byte for byte.
    expect(
      finals.filter((answer) => !answer.replayed),
      seen.join(' '),
    ).toHaveLength(1);
    for (const answer of finals)
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 201,
        body: first?.body,
      });
    // Before that, a client saw the answer, a 409, or (on this busy machine) a 5xx.
    for (const answer of runs.flat()) {
      expect(answer.status === 201 || answer.status === 409 || answer.status >= 500).toBe(true);
    }

    const handle = openPostgres(database.url, 1);
    cleanup.push(() => handle.close());
    const payouts = () => handle.db.$count(requests, eq(requests.accountId, accountId));
    expect(await payouts()).toBe(1);
    const { requestId } = JSON.parse(first?.body ?? '{}') as { requestId: string };
    expect(typeof requestId).toBe('string');

    // The same key with another body, on either process: 422, nothing written.
    for (const url of urls) {
      const changed = await send(url, apiKey, key, { ...body, amount: '11' });
      expect(changed.status).toBe(422);
      expect(JSON.parse(changed.body)).toMatchObject({ code: 'idempotency_key_reused' });
    }
    expect(await payouts()).toBe(1);

    // Both processes stop; a new one still replays the key's answer.
    for (const server of servers.splice(0)) await server.stop();
    servers.push(await startServer(env[1], { timeoutMs: START_MS }));
    const after = await send(servers[0]?.url as string, apiKey, key, body);
    expect(after).toEqual({ status: 201, body: first?.body, replayed: true });
    expect(await payouts()).toBe(1);
  }, 360_000);
});
