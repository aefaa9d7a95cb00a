// npm run bench: webhook latency and throughput, each next to a baseline measured in the same
// run on the same machine, reported as a ratio. Loopback only.
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { custom } from 'viem';
import { createAccount } from '../src/auth/accounts.ts';
import { createChainClients } from '../src/chains/clients.ts';
import { networkEnvSuffix } from '../src/chains/networks.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import { systemClock } from '../src/clock.ts';
import { parseConfig } from '../src/config.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { wrapPglite } from '../src/db/pglite.ts';
import { activateDestination } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { createLogger } from '../src/logger.ts';
import { startLocalChain } from '../src/sandbox/chain.ts';
import { buildApp } from '../src/server/app.ts';
import { enqueue } from '../src/webhooks/outbox.ts';
import { postJson } from '../src/webhooks/post.ts';
import { signV1 } from '../src/webhooks/signature.ts';
import { safeLookup } from '../src/webhooks/url-policy.ts';
import { createWorkers } from '../src/workers.ts';
import { accountOf, sendAll } from '../test/chain.ts';
import { startReceiver } from '../test/webhook-receiver.ts';
import { report } from './report.ts';

const LATENCY_RUNS = 10;
const DELIVERIES = 400;
const CONCURRENCY = 20;
const CONFIRMATIONS = 1;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

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
  INDEXER_POLL_MS: '20',
  DISPATCHER_POLL_MS: '20',
});
const database = wrapPglite(await PGlite.create());
await migrateDatabase(database);
const chains = createChainRegistry(config);
const transports = { base: custom(chain.provider, { retryCount: 0 }) };
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

// 1. Confirming block → webhook received, against one signed POST to the same receiver.
const pipeline: number[] = [];
const baseline: number[] = [];
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
  const before = receiver.received.length;
  await chain.provider.request({ method: 'evm_mine' } as never); // the confirming block
  const mined = performance.now();
  await receiver.waitFor(before + 2); // payment.confirmed + .checkout
  pipeline.push((receiver.received[before]?.at ?? performance.now()) - mined);

  const body = JSON.stringify({ event: 'payment.confirmed', run });
  const start = performance.now();
  await postJson(
    receiver.url,
    body,
    { 'x-service-signature': signV1(body, secret) },
    { timeoutMs: 5_000, lookup: safeLookup(true) },
  );
  baseline.push(performance.now() - start);
}

// 2. Deliveries per second through the outbox, against the same POSTs sent directly.
await workers.stop();
const bodies = Array.from({ length: DELIVERIES }, (_, i) => ({
  event: 'payment.confirmed',
  payload: { i },
}));
receiver.received.length = 0;
const directStart = performance.now();
for (let i = 0; i < DELIVERIES; i += CONCURRENCY) {
  await Promise.all(
    bodies.slice(i, i + CONCURRENCY).map((b) => {
      const body = JSON.stringify({ event: b.event, ...b.payload });
      return postJson(
        receiver.url,
        body,
        { 'x-service-signature': signV1(body, secret) },
        { timeoutMs: 5_000, lookup: safeLookup(true) },
      );
    }),
  );
}
const directRate = DELIVERIES / ((performance.now() - directStart) / 1000);
receiver.received.length = 0;
await enqueue(database.db, systemClock.now(), [webhookId], bodies);
const outboxStart = performance.now();
while ((await workers.dispatcher.runOnce()) > 0) {}
const outboxRate = DELIVERIES / ((performance.now() - outboxStart) / 1000);
await receiver.waitFor(DELIVERIES);

const rows = [
  {
    metric: 'confirming block → webhook received (median ms)',
    payreq: median(pipeline),
    baseline: median(baseline),
    note: 'baseline: one signed POST to the same receiver',
  },
  {
    metric: 'deliveries per second',
    payreq: outboxRate,
    baseline: directRate,
    note: `baseline: the same ${DELIVERIES} POSTs sent directly, ${CONCURRENCY} at a time`,
  },
] as const;
report('webhooks', [
  {
    bench: 'webhooks',
    name: 'confirming block → webhook received (PGlite, median)',
    value: rows[0].payreq,
    unit: 'ms',
    baseline: { name: 'one signed POST to the same receiver', value: rows[0].baseline },
    goal: { op: '<=', limit: 2 },
  },
  {
    bench: 'webhooks',
    name: `webhook dispatch, ${DELIVERIES} deliveries`,
    value: rows[1].payreq,
    unit: 'per s',
    baseline: { name: rows[1].note.replace('baseline: ', ''), value: rows[1].baseline },
    goal: { op: '>=', limit: 0.8 },
  },
]);
await receiver.close();
await app.close();
await database.close();
await chain.close();
