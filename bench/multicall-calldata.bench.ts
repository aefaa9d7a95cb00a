import { PGlite } from '@electric-sql/pglite';
import { createAccount } from '../src/auth/accounts.ts';
import { parseConfig } from '../src/config/config.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { wrapPglite } from '../src/db/pglite.ts';
import { accountOf, standIn } from '../test/chain.ts';
import { benchApp } from './app.ts';
import { type BenchRow, report } from './report.ts';

const CHILDREN = 150;
const RUNS = 7;
const WARM_UP = 2;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const local = await standIn('base', { walletCount: 4 });
const config = parseConfig({
  DATA_DIR: '/tmp/payreq-bench',
  SANDBOX: 'false',
  LOG_LEVEL: 'silent',
  ...local.env,
});
const database = wrapPglite(await PGlite.create());
await migrateDatabase(database);
const { app } = await benchApp(config, database, local.transports);
const { apiKey } = await createAccount(database.db, 'Bench');
const headers = { 'x-api-key': apiKey };
const creator = accountOf(local.chain, 0).address;

const children: string[] = [];
for (let i = 0; i < CHILDREN; i++) {
  const res = await app.inject({
    method: 'POST',
    url: '/v2/secure-payments/payouts',
    headers,
    payload: {
      recipient: accountOf(local.chain, 1 + (i % 3)).address,
      creatorWalletAddress: creator,
      network: 'base',
      currency: ['USDC-base', 'DAI-base', 'USDT-base'][i % 3],
      amount: `${1 + i}.5`,
    },
  });
  if (res.statusCode !== 201) throw new Error(`payout ${i}: ${res.body}`);
  children.push((res.json() as { token: string }).token);
}
const parent = await app.inject({
  method: 'POST',
  url: '/v2/secure-payments/multicall-payouts',
  headers,
  payload: { childTokens: children },
});
if (parent.statusCode !== 201) throw new Error(`multicall: ${parent.body}`);
const parentToken = (parent.json() as { token: string }).token;

async function calldata(token: string): Promise<void> {
  const res = await app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay?wallet=${creator}`,
    headers,
  });
  if (res.statusCode !== 200) throw new Error(`pay ${token}: ${res.body}`);
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + RUNS; i++) {
    const started = performance.now();
    await run();
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  return median(times);
}

try {
  const oneByOne = await timed(async () => {
    for (const child of children) await calldata(child);
  });
  const multicall = await timed(() => calldata(parentToken));
  const rows: BenchRow[] = [
    {
      bench: 'multicall-calldata',
      name: `multicall calldata for ${CHILDREN} children (median of ${RUNS})`,
      value: multicall,
      unit: 'ms',
      baseline: { name: 'each child’s GET /pay one by one', value: oneByOne },
    },
  ];
  report('multicall-calldata', rows);
} finally {
  await app.close();
  await local.chain.close();
}
