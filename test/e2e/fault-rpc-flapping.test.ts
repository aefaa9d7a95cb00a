import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { serveJsonRpc } from '../../src/sandbox/rpc-server.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { call, createAccountByCli, suiteDatabase, until } from '../faults.ts';
import { type FaultyRpc, type RpcFault, startFaultyRpc } from '../faulty-rpc.ts';
import { createDestinationByCli, processEnv, type ServerProcess, startServer } from '../process.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';

/**
 * The network's RPC flaps under a payreq process (on the suite's database) whose detection is
 * following the chain: a proxy on loopback between the two drops connections, answers 502,
 * answers bodies that are not JSON, JSON-RPC results of the wrong shape and JSON-RPC errors,
 * and hangs, one after the other, while payers keep paying on the chain. Meanwhile the
 * calldata route that reads the payer's balances answers 502 `chain_rpc_failed`
 * (docs/errors.md) within one RPC timeout instead of hanging; once the RPC is back, detection resumes without a gap: every payment, made before,
 * during or after the flapping, is recorded once, and its webhook is delivered once.
 */

const source = inject('testDatabase');
const FAULTS: readonly RpcFault[] = [
  'drop',
  'bad_gateway',
  'not_json',
  'wrong_result',
  'rpc_error',
  'hang',
];
/** One payment before the flapping, one during each fault, one after. */
const PAYMENTS = FAULTS.length + 2;
/** The RPC timeout (src/chains/clients.ts) and a margin for the rest of the route. */
const PAY_BOUND_MS = 10_000 + 2_000;
/** How long each fault lasts: a few of the indexer's rounds (INDEXER_POLL_MS=100). */
const FAULT_MS = 700;

const cleanup: (() => Promise<void>)[] = [];
let local: StandIn | undefined;
let proxy: FaultyRpc | undefined;
let server: ServerProcess | undefined;
let receiver: Receiver | undefined;

afterAll(async () => {
  await server?.stop('SIGKILL');
  await proxy?.close();
  await receiver?.close();
  for (const step of cleanup.reverse()) await step();
  await local?.chain.close();
});

/** The process, its account and destination, and a registered receiver: set up before the clock runs. */
async function setUp() {
  local = await standIn('base');
  const chain = local.chain;
  const rpc = await serveJsonRpc(chain.provider);
  cleanup.push(rpc.close);
  const faulty = await startFaultyRpc(rpc.url);
  proxy = faulty;
  const hooks = await startReceiver();
  receiver = hooks;
  const env = processEnv(
    {
      ...local.env,
      ...(await suiteDatabase(cleanup)),
      RPC_URL_BASE: faulty.url,
      CONFIRMATIONS_BASE: '0',
      INDEXER_POLL_MS: '100',
      DISPATCHER_POLL_MS: '100',
      ALLOW_LOCAL_WEBHOOKS: 'true',
    },
    { migrated: true },
  );
  const account = await createAccountByCli(env, 'Flapping RPC');
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
  return { chain, proxy: faulty, receiver: hooks, api, destinationId };
}

describe(`an RPC that flaps and answers garbage (${source.kind})`, () => {
  let world: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    world = await setUp();
  }, 240_000);

  it('answers /pay 502 chain_rpc_failed within one RPC timeout meanwhile, and misses no payment after', async () => {
    const { chain, proxy, receiver, api, destinationId } = world;

    // The links and their calldata, read while the RPC answers.
    const payer = accountOf(chain, 2);
    const links: { requestId: string; token: string; transactions: EvmTransaction[] }[] = [];
    for (let i = 0; i < PAYMENTS + 1; i++) {
      const created = await api('/v2/secure-payments', {
        requests: [{ destinationId, amount: `${i + 1}` }],
      });
      expect(created.status).toBe(201);
      const { token, requestIds } = created.body as { token: string; requestIds: string[] };
      const pay = await api(`/v2/secure-payments/${token}/pay?wallet=${payer.address}`);
      expect(pay.status).toBe(200);
      const { transactions } = pay.body as { transactions: EvmTransaction[] };
      links.push({ requestId: requestIds[0] as string, token, transactions });
    }
    // The last link is never paid: its calldata is asked for during each fault.
    const unpaid = links.pop();
    if (!unpaid) throw new Error('no link');
    let paid = 0;
    const payNext = async () => {
      const link = links[paid++];
      if (!link) throw new Error('no link left to pay');
      await sendAll(chain, payer, link.transactions);
    };

    await payNext();
    await until(
      'the first payment',
      () => api(`/v2/request/${links[0]?.requestId}`),
      (r) => isPaid(r.body),
    );

    const refusals: { fault: RpcFault; status: number; code: unknown; ms: number }[] = [];
    for (const fault of FAULTS) {
      proxy.set(fault);
      const answer = api(`/v2/secure-payments/${unpaid.token}/pay?wallet=${payer.address}`);
      await payNext();
      const [settled] = await Promise.all([
        answer,
        new Promise((resolve) => setTimeout(resolve, FAULT_MS)),
      ]);
      refusals.push({
        fault,
        status: settled.status,
        code: (settled.body as { code?: unknown }).code,
        ms: Math.round(settled.ms),
      });
    }
    proxy.set('pass');
    await payNext();

    // Every fault was met, by the route and by detection.
    for (const fault of FAULTS) expect(proxy.answered[fault], fault).toBeGreaterThan(0);
    for (const refusal of refusals) {
      expect(refusal, refusal.fault).toMatchObject({ status: 502, code: 'chain_rpc_failed' });
      expect(refusal.ms, refusal.fault).toBeLessThan(PAY_BOUND_MS);
    }

    // Every payment recorded, once each: its request paid exactly its amount.
    for (const [i, link] of links.entries()) {
      const answer = await until(
        `payment ${i + 1}`,
        () => api(`/v2/request/${link.requestId}`),
        (r) => isPaid(r.body),
        20_000,
      );
      expect(answer.body).toMatchObject({ status: 'paid', totalAmountPaid: `${i + 1}` });
    }
    const confirmed = await until(
      'the payment webhooks',
      async () => receiver.received.filter((r) => r.body.event === 'payment.confirmed'),
      (received) => received.length >= PAYMENTS,
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.body.event === 'payment.confirmed')).toHaveLength(
      PAYMENTS,
    );
    expect(new Set(confirmed.map((r) => r.body.requestId))).toEqual(
      new Set(links.map((link) => link.requestId)),
    );
    expect(new Set(confirmed.map((r) => r.headers['x-request-network-delivery'])).size).toBe(
      PAYMENTS,
    );
    // The unpaid link stayed unpaid, and the calldata route works again.
    expect(isPaid((await api(`/v2/request/${unpaid.requestId}`)).body)).toBe(false);
    const again = await api(`/v2/secure-payments/${unpaid.token}/pay?wallet=${payer.address}`);
    expect(again.status).toBe(200);
  }, 60_000);
});

function isPaid(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'status' in body && body.status === 'paid';
}
