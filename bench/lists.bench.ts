// Lists at two sizes: every list and search filter's first page, and its last page reached by
// cursor, timed through the real routes (app.inject: validation, queries, serialisation) at
// 1,000 rows a table and at 1,000,000, each in a database of its own, the two timed in turns in
// one run, reported as the ratio (goal ≤ 2×). Postgres only: scratch databases on
// 127.0.0.1:5432 (BENCH_POSTGRES_URL to change it), created and dropped here.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { parseConfig } from '../src/config/config.ts';
import { type Database, queryRows } from '../src/db/client.ts';
import { encodeCursor } from '../src/db/keyset.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { clientIds } from '../src/db/schema.ts';
import type { App } from '../src/http/types.ts';
import { createTenant } from '../test/fixtures.ts';
import {
  EOA,
  listOwnerWebhook,
  loadListRows,
  PAYEES,
  PAYERS,
  rowFacts,
} from '../test/list-rows.ts';
import { benchApp } from './app.ts';
import { report } from './report.ts';
import { scratchDatabase } from './scratch.ts';

const SCRATCH = 'payreq_bench_lists';
const SIZES = [1_000, 1_000_000] as const;
const PAGE = 20;
const RUNS = 30;
const WARM_UP = 5;
const GOAL_RATIO = 2;
const TABLES = ['requests', 'payments', 'secure_payments', 'webhook_deliveries'];

const print = (line: string) => process.stdout.write(`${line}\n`);

/**
 * One size: a scratch database of its own with a tenant owning `size` rows of each table, and
 * the real app over it. Both sizes are loaded first and then timed in alternation, run by run,
 * so that the machine's drift over a minute (large on a shared VM) falls on both alike.
 */
interface World {
  readonly size: number;
  readonly db: Database;
  readonly app: App;
  readonly apiKey: string;
  readonly accountId: string;
  readonly webhookId: string;
  close(): Promise<void>;
}

async function openWorld(size: number): Promise<World> {
  const scratch = await scratchDatabase(`${SCRATCH}_${size}`);
  const database = openPostgres(scratch.url, 4);
  const { db } = database;
  await migrateDatabase(database);
  const config = parseConfig({
    DATA_DIR: join(tmpdir(), 'payreq-bench-lists'),
    DATABASE_URL: scratch.url,
    SANDBOX: 'false',
    LOG_LEVEL: 'silent',
  });
  const { app } = await benchApp(config, database);
  await app.ready();
  const tenant = await createTenant(db, 'Bench lists');
  const [client] = await db
    .select({ id: clientIds.id })
    .from(clientIds)
    .where(eq(clientIds.clientId, tenant.backendClientId));
  const webhookId = await listOwnerWebhook(db, tenant.accountId);
  const owner = { accountId: tenant.accountId, clientIdRowId: client?.id ?? '', webhookId };
  const started = performance.now();
  await loadFast(db, owner, size);
  print(
    `loaded ${size.toLocaleString('en')} rows a table in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    size,
    db,
    app,
    apiKey: tenant.apiKey,
    accountId: tenant.accountId,
    webhookId,
    close: async () => {
      await app.close();
      await database.close();
      await scratch.drop();
    },
  };
}

/**
 * Bulk loads build the list indexes once at the end rather than row by row: the rows and the
 * indexes are the same, in a fraction of the time. Primary keys and unique indexes stay.
 */
async function loadFast(
  db: Database,
  owner: Parameters<typeof loadListRows>[1],
  size: number,
): Promise<void> {
  const indexes = await queryRows<{ name: string; definition: string }>(
    db,
    sql`select i.indexname as name, i.indexdef as definition from pg_indexes i
        join pg_class c on c.relname = i.indexname join pg_index x on x.indexrelid = c.oid
        where i.schemaname = 'public' and i.tablename in ${TABLES} and not x.indisunique`,
  );
  for (const index of indexes) await db.execute(sql.raw(`drop index "${index.name}"`));
  await loadListRows(db, owner, 1, size);
  for (const index of indexes) await db.execute(sql.raw(index.definition));
  await db.execute(sql.raw(`vacuum analyze ${TABLES.join(', ')}`));
}

/** The cursor of the page before the last one: the (PAGE+1)-th oldest row of the list. */
async function lastCursor(world: World, table: string, at: string): Promise<string> {
  const [row] = await queryRows<{ at: string; id: string }>(
    world.db,
    sql.raw(`select to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id
      from ${table} where account_id = '${world.accountId}'
      order by ${at}, id offset ${PAGE} limit 1`),
  );
  if (!row) throw new Error(`no rows in ${table}`);
  return encodeCursor(row);
}

async function lastDelivery(world: World): Promise<string> {
  const [row] = await queryRows<{ id: string }>(
    world.db,
    sql`select id from webhook_deliveries where webhook_id = ${world.webhookId}
        order by id offset ${PAGE} limit 1`,
  );
  return row?.id ?? '';
}

interface Case {
  readonly list: string;
  readonly path: (world: World) => string;
  readonly query: Record<string, string>;
  readonly last: {
    readonly key: 'cursor' | 'before';
    readonly value: (world: World) => Promise<string>;
  };
}

const facts = rowFacts(777);
const payments = (name: string, query: Record<string, string>): Case => ({
  list: `GET /v2/payments ${name}`,
  path: () => '/v2/payments',
  query,
  last: { key: 'cursor', value: (world) => lastCursor(world, 'payments', 'timestamp') },
});
const cases: Case[] = [
  payments('txHash', { txHash: facts.txHash }),
  payments('walletAddress (payee)', { walletAddress: PAYEES[1] ?? '' }),
  payments('walletAddress (sender)', { walletAddress: PAYERS[2] ?? '' }),
  payments('walletAddress (connected wallet)', { walletAddress: EOA }),
  payments('paymentReference', { paymentReference: facts.paymentReference }),
  payments('requestId', { requestId: facts.requestId }),
  payments('reference', { reference: facts.reference }),
  payments('type=direct', { type: 'direct' }),
  payments('type=conversion', { type: 'conversion' }),
  payments('invoiceCurrency', { invoiceCurrency: 'DAI-base' }),
  payments('paymentCurrency', { paymentCurrency: 'USDC-base' }),
  payments('fromDate', { fromDate: '2025-01-01T00:00:00Z' }),
  payments('toDate', { toDate: '2030-01-01T00:00:00Z' }),
  {
    list: 'GET /v2/request',
    path: () => '/v2/request',
    query: {},
    last: { key: 'cursor', value: (world) => lastCursor(world, 'requests', 'created_at') },
  },
  {
    list: 'GET /v2/request walletAddress',
    path: () => '/v2/request',
    query: { walletAddress: PAYEES[2] ?? '' },
    last: { key: 'cursor', value: (world) => lastCursor(world, 'requests', 'created_at') },
  },
  {
    list: 'GET /v2/secure-payments (list)',
    path: () => '/v2/secure-payments',
    query: { payout: 'false' },
    last: { key: 'cursor', value: (world) => lastCursor(world, 'secure_payments', 'created_at') },
  },
  {
    list: `GET /v1/webhook/:id/deliveries`,
    path: (world) => `/v1/webhook/${world.webhookId}/deliveries`,
    query: {},
    last: { key: 'before', value: lastDelivery },
  },
];

/** One timed call of the list through the app, in milliseconds. */
async function timeOnce(world: World, path: string, query: Record<string, string>) {
  const url = `${path}?${new URLSearchParams({ ...query, limit: String(PAGE) })}`;
  const started = performance.now();
  const res = await world.app.inject({
    method: 'GET',
    url,
    headers: { 'x-api-key': world.apiKey },
  });
  const elapsed = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return elapsed;
}

const medianOf = (times: number[]) =>
  [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;

/** The page at both sizes, alternating which goes first, run by run: the medians of each. */
async function sideBySide(
  worlds: readonly World[],
  c: Case,
  page: 'first' | 'last',
): Promise<number[]> {
  const queries = await Promise.all(
    worlds.map(async (world) =>
      page === 'first' ? c.query : { ...c.query, [c.last.key]: await c.last.value(world) },
    ),
  );
  const times: number[][] = worlds.map(() => []);
  for (let run = 0; run < WARM_UP + RUNS; run++) {
    const order = run % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const world = worlds[i] as World;
      const elapsed = await timeOnce(world, c.path(world), queries[i] ?? {});
      if (run >= WARM_UP) times[i]?.push(elapsed);
    }
  }
  return times.map(medianOf);
}

const worlds: World[] = [];
for (const size of SIZES) worlds.push(await openWorld(size));
type Timings = Record<string, { first: number; last: number }>;
const timings: Timings[] = SIZES.map(() => ({}));
for (const c of cases) {
  const [firstSmall, firstLarge] = await sideBySide(worlds, c, 'first');
  const [lastSmall, lastLarge] = await sideBySide(worlds, c, 'last');
  (timings[0] as Timings)[c.list] = {
    first: firstSmall ?? Number.NaN,
    last: lastSmall ?? Number.NaN,
  };
  (timings[1] as Timings)[c.list] = {
    first: firstLarge ?? Number.NaN,
    last: lastLarge ?? Number.NaN,
  };
}

const rows = cases.flatMap((c) =>
  (['first', 'last'] as const).map((page) => {
    const small = timings[0]?.[c.list]?.[page] ?? Number.NaN;
    const large = timings[1]?.[c.list]?.[page] ?? Number.NaN;
    return {
      list: c.list,
      page: page === 'first' ? 'first page' : `last page (${c.last.key})`,
      ms1k: Number(small.toFixed(2)),
      ms1m: Number(large.toFixed(2)),
      ratio: Number((large / small).toFixed(2)),
      goal: GOAL_RATIO,
      met: large / small <= GOAL_RATIO,
    };
  }),
);

report(
  'lists',
  rows.map((row) => ({
    bench: 'lists',
    name: `${row.list}, ${row.page}, 1,000,000 rows`,
    value: row.ms1m,
    unit: 'ms',
    baseline: { name: 'the same at 1,000 rows', value: row.ms1k },
    goal: { op: '<=' as const, limit: GOAL_RATIO },
  })),
);

for (const world of worlds) await world.close();
