// npm run bench: webhook latency and throughput, each next to a baseline measured in the same
// run on the same machine, reported as a ratio; on Postgres (a scratch database on
// 127.0.0.1:5432, BENCH_POSTGRES_URL to change it, dropped at the end) and on PGlite. Loopback
// only.
//
// Latency runs from the moment the indexer learns of the confirming block (the node's new-heads
// notification reaches it, or its head read returns it, whichever is first) to the receiver
// holding the webhook. The indexer follows the chain's new heads (src/detection/heads.ts); the
// poll is left at its default, the safety net it is in a deployment.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { PGlite } from '@electric-sql/pglite';
import { eq } from 'drizzle-orm';
import { type EIP1193RequestFn, getAddress } from 'viem';
import { createAccount } from '../src/auth/accounts.ts';
import { systemClock } from '../src/base/clock.ts';
import { createKeyRing } from '../src/base/key-ring.ts';
import { createLogger } from '../src/base/logger.ts';
import { createSecretBox } from '../src/base/secret-box.ts';
import { ulid } from '../src/base/ulid.ts';
import { createChainClients } from '../src/chains/clients.ts';
import { networkEnvSuffix } from '../src/chains/networks.ts';
import { providerTransport } from '../src/chains/provider-transport.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import { parseConfig } from '../src/config/config.ts';
import type { DatabaseHandle } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { wrapPglite } from '../src/db/pglite.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { chainBlocks, chainCheckpoints } from '../src/db/schema.ts';
import { activateDestination } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { startLocalChain } from '../src/sandbox/chain.ts';
import { buildApp } from '../src/server/app.ts';
import { enqueue } from '../src/webhooks/outbox.ts';
import { postJson } from '../src/webhooks/post.ts';
import { deliveryHeaders } from '../src/webhooks/signature.ts';
import { safeLookup } from '../src/webhooks/url-policy.ts';
import { createWorkers } from '../src/workers/workers.ts';
import { accountOf, sendAll } from '../test/chain.ts';
import { startReceiver } from '../test/webhook-receiver.ts';
import { type BenchRow, report } from './report.ts';
import { scratchDatabase, settle } from './scratch.ts';

/**
 * Payments, the first `LATENCY_WARM` only warming up: the first few of a process take two to
 * four times the steady state's time (V8 is still compiling the path), and were half of the
 * runs the median was taken of.
 */
const LATENCY_RUNS = 26;
const LATENCY_WARM = 5;
const DELIVERIES = 1_000;
/**
 * Rounds of each kind, in pairs; the first `WARM_ROUNDS` pairs only warm up. A round of 1,000
 * lasts a tenth of a second: V8 is still optimising the dispatcher's path after one, so the
 * steady state is measured after three, as the HTTP bench measures after a warm-up. Rounds this
 * short move by a third from one to the next on a shared machine, with the same code, and the
 * machine's speed drifts within a run (the direct rounds' rate doubled between two runs): each
 * pair's own ratio is taken, its two rounds side by side (in turns first), and the median of
 * twenty-one such ratios reported.
 */
const THROUGHPUT_ROUNDS = 24;
const WARM_ROUNDS = 3;
const CONCURRENCY = 20;
const CONFIRMATIONS = 1;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const SCRATCH = 'payreq_bench_webhooks';

interface Measured {
  readonly latency: {
    /** Confirming block seen by the indexer → webhook received, per run. */
    readonly seen: number[];
    /** Payment recorded (the indexer's transaction committed) → webhook received, per run. */
    readonly recorded: number[];
    /** One signed POST to the same receiver, per run. */
    readonly baseline: number[];
    /**
     * The least any detection does between the block and the webhook, per run: the block's
     * payment logs and the payment's receipt (who paid) read from the node, one row written by
     * a statement that commits on its own (one round trip, no BEGIN or COMMIT), and the signed
     * POST.
     */
    readonly floor: number[];
  };
  /** Deliveries per second, per measured round. */
  readonly throughput: { readonly outbox: number[]; readonly direct: number[] };
}

async function measure(database: DatabaseHandle): Promise<Measured> {
  const chain = await startLocalChain({ chainId: 8453 });

  const a = chain.addresses;
  const suffix = networkEnvSuffix('base');
  const config = parseConfig({
    DATA_DIR: '/tmp/payreq-bench',
    SANDBOX: 'false',
    LOG_LEVEL: 'silent',
    [`TOKENS_${suffix}`]: JSON.stringify({ USDC: a.usdc }),
    [`CONTRACTS_${suffix}`]: JSON.stringify({
      erc20FeeProxy: a.erc20FeeProxy,
      ethFeeProxy: a.ethFeeProxy,
      batchPayments: a.batchPayments,
      multicall3: a.multicall3,
    }),
    [`CONFIRMATIONS_${suffix}`]: String(CONFIRMATIONS),

    DISPATCHER_POLL_MS: '20',
  });
  const chains = createChainRegistry(config);
  // The indexer's view of the chain: when a new-heads notification of the confirming block
  // reaches it, or its head read first returns it.
  let awaited: bigint | null = null;
  let seenAt: number | null = null;
  const seen = (number: unknown) => {
    if (awaited !== null && seenAt === null && typeof number === 'string')
      if (BigInt(number) >= awaited) seenAt = performance.now();
  };
  const request: EIP1193RequestFn = async (args) => {
    const result = await chain.provider.request(args);
    if (args.method === 'eth_blockNumber') seen(result);
    return result as never;
  };
  const notifications = new EventEmitter();
  chain.provider.on?.('message', (message) => {
    const data = (message as { data?: { result?: { number?: unknown } } }).data;
    seen(data?.result?.number);
    notifications.emit('message', message);
  });
  const provider = {
    request,
    on: (event: 'message' | 'disconnect', listener: (payload: unknown) => void) =>
      notifications.on(event, listener),
    removeListener: (event: 'message' | 'disconnect', listener: (payload: unknown) => void) =>
      notifications.removeListener(event, listener),
  };
  const transports = { base: providerTransport(provider) };
  const clients = createChainClients({ config, chains, transports });
  const logger = createLogger('silent');
  const secretBox = createSecretBox(randomBytes(32));
  const workers = createWorkers({
    config: {
      ...config,
      networks: { ...config.networks, base: { ...config.networks.base, rpcUrl: 'http://unused' } },
    },
    database,
    chains,
    clients,
    logger,
    clock: systemClock,
    secretBox,
  });
  const { app } = await buildApp({
    config,
    chains,
    clients,
    database,
    logger,
    clock: systemClock,
    secretBox,
    keyRing: createKeyRing({ defaultKey: randomBytes(32) }),
    wakeDispatcher: () => workers.dispatcher.wake(),
  });
  await app.ready();
  const receiver = await startReceiver();
  const { accountId, apiKey } = await createAccount(database.db, 'Bench');
  const headers = { 'x-api-key': apiKey };
  const registered = await app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers,
    payload: { url: receiver.url },
  });
  const { id: webhookId, secret } = registered.json() as { id: string; secret: string };
  const destination = await activateDestination(
    database.db,
    systemClock,
    accountId,
    resolveTarget(chains, {
      walletAddress: accountOf(chain, 1).address,
      chainId: 8453,
      tokenAddress: a.usdc,
    }),
  );
  workers.start();

  // What a direct sender would send: the same signed headers, to the same receiver.
  const direct = (body: string) =>
    postJson(
      receiver.url,
      body,
      {
        'user-agent': 'payreq-bench',
        ...deliveryHeaders({
          body,
          secret,
          deliveryId: ulid(),
          retryCount: 0,
          test: false,
          timestamp: Math.floor(Date.now() / 1000),
        }),
      },
      { timeoutMs: 5_000, lookup: safeLookup(true) },
    );
  // When the indexer hands the recorded payment to the dispatcher (it wakes it after commit).
  let recordedAt: number | null = null;
  const wake = workers.dispatcher.wake;
  workers.dispatcher.wake = () => {
    recordedAt ??= performance.now();
    wake();
  };

  /** Resolves once the indexer's checkpoint has reached `block`. */
  const indexed = async (block: bigint) => {
    for (const started = performance.now(); performance.now() - started < 10_000; ) {
      const [row] = await database.db
        .select({ last: chainCheckpoints.lastBlock })
        .from(chainCheckpoints)
        .where(eq(chainCheckpoints.network, 'base'));
      if (row && row.last >= block) return;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    throw new Error(`the indexer never reached block ${block}`);
  };

  // 1. Latency, against one signed POST to the same receiver.
  const latency: Measured['latency'] = { seen: [], recorded: [], baseline: [], floor: [] };
  const payer = accountOf(chain, 2);
  for (let run = 0; run < LATENCY_RUNS; run++) {
    const link = await app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers,
      payload: { requests: [{ destinationId: destination.destinationId, amount: '1' }] },
    });
    const pay = await app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${link.json().token}/pay?wallet=${payer.address}`,
      headers,
    });
    await sendAll(chain, payer, pay.json().transactions);
    // As on a chain whose blocks are a second or more apart: the indexer is done with the
    // payment's own block (nothing to record yet, one confirmation short) when the next comes.
    await indexed((await chain.client.getBlockNumber({ cacheTime: 0 })) - BigInt(CONFIRMATIONS));
    const before = receiver.received.length;
    seenAt = null;
    recordedAt = null;
    awaited = (await chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
    await chain.provider.request({ method: 'evm_mine' }); // the confirming block
    await receiver.waitFor(before + 2); // payment.confirmed + .checkout
    const received = receiver.received[before]?.at ?? Number.NaN;
    latency.seen.push(received - (seenAt ?? Number.NaN));
    latency.recorded.push(received - (recordedAt ?? Number.NaN));

    const start = performance.now();
    await direct(JSON.stringify({ event: 'payment.confirmed', run }));
    latency.baseline.push(performance.now() - start);

    const floorStart = performance.now();
    const paidIn = (awaited ?? 1n) - 1n;
    const [log] = await chain.client.getLogs({
      address: [getAddress(a.erc20FeeProxy), getAddress(a.ethFeeProxy)],
      fromBlock: paidIn,
      toBlock: paidIn,
    });
    if (!log?.transactionHash) throw new Error(`no payment log in block ${paidIn}`);
    await chain.client.getTransactionReceipt({ hash: log.transactionHash });
    await database.db
      .insert(chainBlocks)
      .values({ network: 'bench-floor', number: paidIn, hash: '0x' });
    await direct(JSON.stringify({ event: 'payment.confirmed', run }));
    latency.floor.push(performance.now() - floorStart);
  }

  // 2. Deliveries per second through the outbox, against the same POSTs sent directly, in
  // pairs of rounds (the first pairs warm up).
  await workers.stop();
  const throughput: Measured['throughput'] = { outbox: [], direct: [] };
  const bodies = Array.from({ length: DELIVERIES }, (_, i) => ({
    event: 'payment.confirmed',
    payload: { i },
  }));
  const directRound = async () => {
    receiver.received.length = 0;
    const start = performance.now();
    for (let i = 0; i < DELIVERIES; i += CONCURRENCY) {
      await Promise.all(
        bodies
          .slice(i, i + CONCURRENCY)
          .map((b) => direct(JSON.stringify({ event: b.event, ...b.payload }))),
      );
    }
    throughput.direct.push(DELIVERIES / ((performance.now() - start) / 1000));
  };
  const outboxRound = async () => {
    receiver.received.length = 0;
    await enqueue(database.db, systemClock.now(), [webhookId], bodies);
    // The dispatcher as a process runs it: started, sending as it claims; done once every
    // delivery is received and recorded.
    const start = performance.now();
    workers.dispatcher.start(60_000);
    await receiver.waitFor(DELIVERIES, 60_000);
    await workers.dispatcher.stop();
    throughput.outbox.push(DELIVERIES / ((performance.now() - start) / 1000));
  };
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    if (round % 2 === 0) {
      await directRound();
      await outboxRound();
    } else {
      await outboxRound();
      await directRound();
    }
  }

  await receiver.close();
  await app.close();
  await chain.close();
  const steady = (values: number[]) => values.slice(LATENCY_WARM);
  return {
    latency: {
      seen: steady(latency.seen),
      recorded: steady(latency.recorded),
      baseline: steady(latency.baseline),
      floor: steady(latency.floor),
    },
    throughput: {
      outbox: throughput.outbox.slice(WARM_ROUNDS),
      direct: throughput.direct.slice(WARM_ROUNDS),
    },
  };
}

const scratch = await scratchDatabase(SCRATCH);
const onPostgres = openPostgres(scratch.url, 10);
await migrateDatabase(onPostgres);
await settle();
const postgres = await measure(onPostgres);
await onPostgres.close();
await scratch.drop();
const onPglite = wrapPglite(await PGlite.create());
await migrateDatabase(onPglite);
const pglite = await measure(onPglite);
await onPglite.close();

const rows = (engine: string, m: Measured) =>
  [
    {
      bench: 'webhooks',
      name: `payment recorded → webhook received (${engine}, median)`,
      value: median(m.latency.recorded),
      unit: 'ms',
      baseline: { name: 'one signed POST to the same receiver', value: median(m.latency.baseline) },
      goal: { op: '<=', limit: 2 },
      note: `${LATENCY_RUNS - LATENCY_WARM} payments after ${LATENCY_WARM} to warm up; each figure the median of its runs`,
    },
    {
      bench: 'webhooks',
      name: `block seen → webhook received (${engine}, median)`,
      value: median(m.latency.seen),
      unit: 'ms',
      baseline: { name: 'one signed POST to the same receiver', value: median(m.latency.baseline) },
      goal: { op: '<=', limit: 2 },
      note: 'the detection itself, from the new head: logs, payer, one transaction recording what follows',
    },
    {
      bench: 'webhooks',
      name: `floor: logs + receipt read, one row inserted (autocommit), one POST (${engine}, median)`,
      value: median(m.latency.floor),
      unit: 'ms',
      baseline: { name: 'one signed POST to the same receiver', value: median(m.latency.baseline) },
      note: 'no goal: the least any detection does from the block to the webhook (the goal above cannot lie below it)',
    },
    {
      bench: 'webhooks',
      name: `webhook dispatch, ${DELIVERIES} deliveries (${engine}, median)`,
      value: median(m.throughput.outbox),
      unit: 'per s',
      baseline: {
        name: `the same ${DELIVERIES} POSTs sent directly, ${CONCURRENCY} at a time`,
        value: median(m.throughput.direct),
      },
      pairedRatio: median(
        m.throughput.outbox.map((rate, i) => rate / (m.throughput.direct[i] ?? 0)),
      ),
      goal: engine === 'PGlite' ? undefined : { op: '>=', limit: 0.9 },
      note: `ratio: the median of ${THROUGHPUT_ROUNDS - WARM_ROUNDS} rounds' each to the baseline's beside it, after ${WARM_ROUNDS} to warm up${
        engine === 'PGlite' ? '; no goal: PGlite is for light traffic (README)' : ''
      }`,
    },
  ] satisfies BenchRow[];
report('webhooks', [...rows('Postgres', postgres), ...rows('PGlite', pglite)]);
