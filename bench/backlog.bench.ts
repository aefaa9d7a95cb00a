// npm run bench: detection catching up. A backlog of BACKLOG_LOGS payment logs (100,000 unless
// told) on a local chain, every one paying one of a link's requests (the batch contract's call,
// 200 payments a transaction), detected and recorded by the indexer in one pass, against the
// time to fetch the same logs from the same node (eth_getLogs over the same blocks), on
// Postgres (a scratch database on 127.0.0.1:5432, BENCH_POSTGRES_URL to change it, dropped at
// the end). Loopback only.
import { eq, sql } from 'drizzle-orm';
import { getAddress } from 'viem';
import { createAccount } from '../src/auth/accounts.ts';
import { systemClock } from '../src/base/clock.ts';
import { createLogger } from '../src/base/logger.ts';
import { networkEnvSuffix } from '../src/chains/networks.ts';
import { providerTransport } from '../src/chains/provider-transport.ts';
import { commerceWatchers } from '../src/commerce/detect-events.ts';
import { parseConfig } from '../src/config/config.ts';
import { queryRows } from '../src/db/client.ts';
import { createLeaderLock } from '../src/db/leader-lock.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { chainCheckpoints } from '../src/db/schema.ts';
import { activateDestination } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { createEvmSource } from '../src/detection/evm-source.ts';
import { createIndexer } from '../src/detection/indexer.ts';
import { startLocalChain } from '../src/sandbox/chain.ts';
import { createSettlement } from '../src/workers/settlement.ts';
import { payBacklog } from '../test/backlog.ts';
import { accountOf } from '../test/chain.ts';
import { benchApp } from './app.ts';
import { report } from './report.ts';
import { scratchDatabase, settle } from './scratch.ts';

const LOGS = Number(process.env.BACKLOG_LOGS ?? 100_000);
const PER_TX = 200;
const REQUESTS = 10;
const SCRATCH = 'payreq_bench_backlog';
const print = (line: string) => process.stdout.write(`${line}\n`);

const scratch = await scratchDatabase(SCRATCH);
const database = openPostgres(scratch.url, 10);
await migrateDatabase(database);
const chain = await startLocalChain({ chainId: 8453 });
const a = chain.addresses;
const suffix = networkEnvSuffix('base');
const config = parseConfig({
  DATA_DIR: '/tmp/payreq-bench',
  DATABASE_URL: scratch.url,
  SANDBOX: 'false',
  LOG_LEVEL: 'silent',
  [`TOKENS_${suffix}`]: JSON.stringify({ USDC: a.usdc }),
  [`CONTRACTS_${suffix}`]: JSON.stringify({
    erc20FeeProxy: a.erc20FeeProxy,
    ethFeeProxy: a.ethFeeProxy,
    batchPayments: a.batchPayments,
    multicall3: a.multicall3,
  }),
});
const { app, chains, clients } = await benchApp(config, database, {
  base: providerTransport(chain.provider),
});
const logger = createLogger('silent');
await app.ready();
const { accountId, apiKey } = await createAccount(database.db, 'Bench backlog');
const headers = { 'x-api-key': apiKey };
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
const link = await app.inject({
  method: 'POST',
  url: '/v2/secure-payments',
  headers,
  payload: {
    requests: Array.from({ length: REQUESTS }, () => ({
      destinationId: destination.destinationId,
      amount: '1',
    })),
  },
});
const payer = accountOf(chain, 2);
const pay = await app.inject({
  method: 'GET',
  url: `/v2/secure-payments/${link.json().token}/pay?wallet=${payer.address}`,
  headers,
});
const indexer = createIndexer({
  db: database.db,
  clock: systemClock,
  logger,
  chains,
  network: 'base',
  source: createEvmSource({
    network: 'base',
    client: clients.evm('base'),
    contracts: chains.contracts('base'),
  }),
  confirmations: 1,
  lock: createLeaderLock(database, 'payreq:bench:backlog'),
  sink: createSettlement({ chains }),
  watchers: commerceWatchers(chains, clients, 'base'),
});
// Caught up to before the backlog: the pass timed below reads the backlog's blocks only.
await indexer.tick();

const made = performance.now();
const { lastBlock } = await payBacklog(chain, payer, [pay.json().batchPaymentTransaction], {
  logs: LOGS,
  perTx: PER_TX,
});
await chain.provider.request({ method: 'evm_mine' }); // the confirming block
print(
  `made ${LOGS.toLocaleString('en')} payment logs in ${((performance.now() - made) / 1000).toFixed(1)} s`,
);
const [checkpoint] = await database.db
  .select({ last: chainCheckpoints.lastBlock })
  .from(chainCheckpoints)
  .where(eq(chainCheckpoints.network, 'base'));
const fromBlock = (checkpoint?.last ?? 0n) + 1n;
await settle();

// The baseline: the same blocks' logs of the payment proxies, fetched and nothing else.
const fetchStart = performance.now();
const fetched = await chain.client.getLogs({
  address: [getAddress(a.erc20FeeProxy), getAddress(a.ethFeeProxy)],
  fromBlock,
  toBlock: lastBlock,
});
const fetchMs = performance.now() - fetchStart;
if (fetched.length !== LOGS) throw new Error(`fetched ${fetched.length} logs, made ${LOGS}`);

const detectStart = performance.now();
const result = await indexer.tick();
const detectMs = performance.now() - detectStart;
if (result.recorded !== LOGS) throw new Error(`recorded ${result.recorded} of ${LOGS} payments`);
print(`fetched in ${fetchMs.toFixed(0)} ms; detected and recorded in ${detectMs.toFixed(0)} ms`);

// What Postgres alone takes to write as many payment rows (the same values, under other
// transaction hashes and ids that sort after theirs, as payreq's time-ordered ids do), with the
// table's indexes, keys and checks: the floor of any detection that records each payment.
await settle();
const floorStart = performance.now();
const copied = await queryRows<{ n: number }>(
  database.db,
  sql`with copied as (
        insert into payments (id, account_id, request_row_id, network, tx_hash, log_index,
          block_number, block_hash, amount, fee_amount, request_amount, request_fee_amount,
          amount_in_usd, fee_address, token_address, payee, payer_address, payer_eoa_address,
          payment_reference, timestamp, detection_source, note, source_network, source_tx_hash,
          client_id_id, conversion, invoice_currency_key, payment_currency_key)
        select ('ffff' || substr(id::text, 5))::uuid, account_id, request_row_id, network,
          'floor-' || tx_hash, log_index, block_number, block_hash, amount, fee_amount,
          request_amount, request_fee_amount, amount_in_usd, fee_address, token_address, payee,
          payer_address, payer_eoa_address, payment_reference, timestamp, detection_source, note,
          source_network, source_tx_hash, client_id_id, conversion, invoice_currency_key,
          payment_currency_key
        from payments order by id
        returning 1)
      select count(*)::int as n from copied`,
);
const floorMs = performance.now() - floorStart;
if (copied[0]?.n !== LOGS) throw new Error(`copied ${copied[0]?.n} payment rows, not ${LOGS}`);
print(`Postgres alone wrote as many payment rows in ${floorMs.toFixed(0)} ms`);

await app.close();
await chain.close();
await database.close();
await scratch.drop();

report('backlog', [
  {
    bench: 'backlog',
    name: `${LOGS.toLocaleString('en')}-log backlog detected and recorded (Postgres)`,
    value: detectMs,
    unit: 'ms',
    baseline: { name: 'eth_getLogs of the same blocks from the same node', value: fetchMs },
    goal: { op: '<=', limit: 2 },
    note: `every log pays one of ${REQUESTS} requests: ${LOGS.toLocaleString('en')} payment rows, their requests' totals and events, in one pass`,
  },
  {
    bench: 'backlog',
    name: 'floor: as many payment rows written by Postgres alone (INSERT … SELECT)',
    value: floorMs,
    unit: 'ms',
    baseline: { name: 'eth_getLogs of the same blocks from the same node', value: fetchMs },
    note: 'no goal: what the row writes cost before any detection work (the goal above cannot lie below it)',
  },
]);
