import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { buildWebApp, DASHBOARD, PAY_PAGE } from '../scripts/build-web-app.ts';
import { webAppWeight } from '../scripts/web-app-weight.ts';
import { createClientId } from '../src/auth/client-ids.ts';
import { parseConfig } from '../src/config/config.ts';
import { queryRows } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { wrapPglite } from '../src/db/pglite.ts';
import { launchChromium } from '../test/browser.ts';
import { listOwnerWebhook, loadListRows } from '../test/list-rows.ts';
import { freePort } from '../test/process.ts';
import { benchApp } from './app.ts';
import { type BenchRow, report } from './report.ts';

/**
 * The merchant dashboard (issue #39): its first load's weight against its budget and the pay
 * page's, and the time from opening Home to its numbers with 100,000 payments in the account
 * (goal: within 1 s), beside a static page of the same bytes.
 */

const PAYMENTS = 100_000;
const RUNS = 9;
const WARM_UP = 2;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

// 1. Weight of fresh builds.
await Promise.all([buildWebApp(DASHBOARD), buildWebApp(PAY_PAGE)]);
const weight = webAppWeight(DASHBOARD.dist);
const payPage = webAppWeight(PAY_PAGE.dist);
const rows: BenchRow[] = [
  {
    bench: 'dashboard',
    name: `dashboard first load, gzip (${weight.files.length} files)`,
    value: weight.gzip / 1024,
    unit: 'KB',
    baseline: { name: 'the weight budget', value: DASHBOARD.budgetBytes / 1024 },
    goal: { op: '<=', limit: 1 },
    note: `${kb(weight.brotli)} brotli, ${kb(weight.raw)} raw`,
  },
  {
    bench: 'dashboard',
    name: 'dashboard first load against the pay page’s, gzip',
    value: weight.gzip / 1024,
    unit: 'KB',
    baseline: { name: 'the pay page’s first load', value: payPage.gzip / 1024 },
  },
];

// 2. Home with 100,000 payments: the service on loopback, signed in with a session cookie.
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
const { app } = await benchApp(config, database);
await app.listen({ port, host: '127.0.0.1' });
const registered = await app.inject({
  method: 'POST',
  url: '/v1/auth/register',
  payload: { email: 'bench@shop.example', password: 'a long enough password' },
});
const { accountId, sessionToken } = registered.json() as {
  accountId: string;
  sessionToken: string;
};
const { clientId } = await createClientId(database.db, {
  accountId,
  label: 'Shop',
  allowedDomains: [],
});
const [client] = await queryRows<{ id: string }>(
  database.db,
  sql`select id from client_ids where client_id = ${clientId}`,
);
const webhookId = await listOwnerWebhook(database.db, accountId);
const seeded = performance.now();
await loadListRows(
  database.db,
  { accountId, clientIdRowId: client?.id ?? '', webhookId },
  1,
  PAYMENTS,
);
// Spread over the last 90 days, as a busy account's are (the triggers move each day's total).
await database.db.execute(
  sql`update payments set timestamp = now() - (extract(epoch from timestamp)::bigint % 90) * interval '1 day'`,
);
const seedSeconds = (performance.now() - seeded) / 1000;
// What Home must show: the payments of the last 30 UTC days (its default period).
const [inPeriod] = await queryRows<{ count: number }>(
  database.db,
  sql`select count(*)::int as count from payments
      where (timestamp at time zone 'UTC')::date >= (now() at time zone 'UTC')::date - 29`,
);
const expected = inPeriod?.count ?? 0;

// The baseline page: as many bytes as the dashboard's first load, as plain HTML.
const staticPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>static</title></head><body><main><p data-field="payments-count">${PAYMENTS}</p><p hidden>${'x'.repeat(weight.raw)}</p></main></body></html>`;
const plain = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(staticPage);
});
await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;

const browser = await launchChromium();

/** Median ms from navigation to Home's payment count on screen, cold (a fresh context each run). */
async function timeToNumbers(url: string, signedIn: boolean): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < WARM_UP + RUNS; run++) {
    const context = await browser.newContext({ locale: 'en-US' });
    if (signedIn)
      await context.addCookies([{ name: 'session_token', value: sessionToken, url: origin }]);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator('[data-field="payments-count"]').waitFor({ state: 'visible' });
    const elapsed = performance.now() - started;
    const shown = await page.locator('[data-field="payments-count"]').textContent();
    await context.close();
    if (signedIn && shown?.replaceAll(',', '') !== String(expected)) {
      throw new Error(`Home shows ${shown} payments, not ${expected}`);
    }
    if (run >= WARM_UP) times.push(elapsed);
  }
  return median(times);
}

try {
  const baseline = await timeToNumbers(plainUrl, false);
  const home = await timeToNumbers(`${origin}/dashboard/`, true);
  rows.push({
    bench: 'dashboard',
    name: `Home to its numbers, ${PAYMENTS.toLocaleString('en-US')} payments (median of ${RUNS})`,
    value: home,
    unit: 'ms',
    baseline: { name: `static HTML page of ${kb(weight.raw)}, no script`, value: baseline },
    note: `payments seeded in ${seedSeconds.toFixed(1)} s`,
  });
  rows.push({
    bench: 'dashboard',
    name: 'Home to its numbers: the issue’s bound (ms)',
    value: home,
    unit: 'ms',
    goal: { op: '<=', limit: 1_000 },
  });
  report('dashboard', rows);
} finally {
  await browser.close();
  plain.close();
  await app.close();
  await database.close();
}
