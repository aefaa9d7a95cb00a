import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { buildWebApp, PAY_PAGE } from '../scripts/build-web-app.ts';
import { webAppWeight } from '../scripts/web-app-weight.ts';
import { createAccount } from '../src/auth/accounts.ts';
import { systemClock } from '../src/base/clock.ts';
import { parseConfig } from '../src/config/config.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { wrapPglite } from '../src/db/pglite.ts';
import { activateDestination } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { launchChromium } from '../test/browser.ts';
import { freePort } from '../test/process.ts';
import { benchApp } from './app.ts';
import { type BenchRow, report } from './report.ts';

const RUNS = 15;
const WARM_UP = 2;
const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

// 1. Weight of a fresh build.
await buildWebApp(PAY_PAGE);
const weight = webAppWeight(PAY_PAGE.dist);
const rows: BenchRow[] = [
  {
    bench: 'pay-page',
    name: `pay page first load, gzip (${weight.files.length} files)`,
    value: weight.gzip / 1024,
    unit: 'KB',
    baseline: { name: 'the weight budget', value: PAY_PAGE.budgetBytes / 1024 },
    goal: { op: '<=', limit: 1 },
    note: `${kb(weight.brotli)} brotli, ${kb(weight.raw)} raw`,
  },
];

// 2. Time to a rendered summary: the service on loopback with one link.
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const config = parseConfig({
  DATA_DIR: '/tmp/payreq-bench',
  SANDBOX: 'false',
  LOG_LEVEL: 'silent',
  BASE_URL: origin,
  PAY_URL: origin,
});
const database = wrapPglite(await PGlite.create());
await migrateDatabase(database);
const { app, chains } = await benchApp(config, database);
await app.listen({ port, host: '127.0.0.1' });
const { accountId, apiKey } = await createAccount(database.db, 'Bench');
const destination = await activateDestination(
  database.db,
  systemClock,
  accountId,
  resolveTarget(chains, { walletAddress: PAYEE, chainId: 8453, tokenAddress: USDC_BASE }),
);
const created = await app.inject({
  method: 'POST',
  url: '/v2/secure-payments',
  headers: { 'x-api-key': apiKey },
  payload: { requests: [{ destinationId: destination.destinationId, amount: '12.5' }] },
});
const token = (created.json() as { token: string }).token;

// The baseline page: as many bytes as the page's first load, as plain HTML.
const filler = 'x'.repeat(weight.raw);
const staticPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>static</title></head><body><main data-screen="pending"><h1>Pay 12.5 USDC</h1><p hidden>${filler}</p></main></body></html>`;
const plain = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(staticPage);
});
await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;

const browser = await launchChromium();

/** Median ms from navigation to a visible summary card, cold (a fresh context each run). */
async function timeToSummary(url: string): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < WARM_UP + RUNS; run++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator('[data-screen="pending"] h1').waitFor({ state: 'visible' });
    const elapsed = performance.now() - started;
    await context.close();
    if (run >= WARM_UP) times.push(elapsed);
  }
  return median(times);
}

try {
  const baseline = await timeToSummary(plainUrl);
  const summary = await timeToSummary(`${origin}/?token=${token}`);
  rows.push({
    bench: 'pay-page',
    name: `pay page to a rendered summary (median of ${RUNS})`,
    value: summary,
    unit: 'ms',
    baseline: { name: `static HTML page of ${kb(weight.raw)}, no script`, value: baseline },
  });
  report('pay-page', rows);
} finally {
  await browser.close();
  plain.close();
  await app.close();
  await database.close();
}
