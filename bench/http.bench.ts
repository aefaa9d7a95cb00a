// npm run bench (http): payreq's hot routes under load next to bare Fastify doing the same
// storage work, both in processes of their own on loopback, loaded by autocannon from this one.
// Postgres: a scratch database on 127.0.0.1:5432, dropped at the end. PGlite: a temporary
// folder. The chain: a local EVM (the real Request contracts) served over JSON-RPC.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { encodeFunctionData } from 'viem';
import { buildServer, SERVER_ENTRY } from '../scripts/build-server.ts';
import { createAccount } from '../src/auth/accounts.ts';
import { systemClock } from '../src/base/clock.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import { parseConfig } from '../src/config/config.ts';
import type { DatabaseHandle } from '../src/db/client.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { openDatabase } from '../src/db/open.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { activateDestination } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { erc20Abi } from '../src/payments/abis.ts';
import { serveJsonRpc } from '../src/sandbox/rpc-server.ts';
import { standIn } from '../test/chain.ts';
import { serverPort } from './port.ts';
import { type BenchRow, report } from './report.ts';
import { ADMIN_URL, scratchDatabase, settle } from './scratch.ts';

// BENCH_SCRATCH: another name, when two checkouts bench on one Postgres at once.
const SCRATCH = process.env.BENCH_SCRATCH ?? 'payreq_bench_http';
const SCRATCH_URL = (() => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${SCRATCH}`;
  return url.toString();
})();
/** Seconds each side of a paired row is measured, in `SLICES` slices. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
// Each load is measured after a warm-up of its own: payreq's bundle is still being compiled by
// V8 a second in (perf: an eighth of its CPU in the optimising compiler then, under 1 % after
// ten), and a steady state is what the ratios compare. Baselines warm up alike.
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 3);
/**
 * Slices each paired measurement alternates in, a second each at the default `SECONDS`
 * (autocannon stops on its one-second sample tick, so shorter slices run a second anyway). On
 * this kind of machine one slice's ratio ranged from 0.37 to 0.74 within a run, with the same
 * code, so a row is taken over eight of them (five gave run-to-run swings of a tenth either
 * way). The spread is printed with the row.
 */
const SLICES = 8;
/** Seconds of the PGlite burst (not paired). */
const BURST_SECONDS = 10;
const BARE = new URL('./bare-server.ts', import.meta.url).pathname;
const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const rows: BenchRow[] = [];
const children: ChildProcess[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];

async function scratchPostgres(): Promise<void> {
  const scratch = await scratchDatabase(SCRATCH);
  cleanups.push(() => scratch.drop());
}

/** An account with an API key and a USDC payee destination on base, made the real way. */
async function seed(database: DatabaseHandle, env: Record<string, string>) {
  await migrateDatabase(database);
  const { accountId, apiKey } = await createAccount(database.db, 'Bench');
  const chains = createChainRegistry(parseConfig({ ...env, SANDBOX: 'false' }));
  const usdc = JSON.parse(env.TOKENS_BASE ?? '{}').USDC as string;
  const destination = await activateDestination(
    database.db,
    systemClock,
    accountId,
    resolveTarget(chains, { walletAddress: PAYEE, chainId: 8453, tokenAddress: usdc }),
  );
  return { apiKey, destinationId: destination.destinationId };
}

/** Starts a server process; resolves with its port once /healthz (or /bare) answers. */
async function startServer(
  args: string[],
  env: Record<string, string>,
  probe: string,
): Promise<{ port: number; child: ChildProcess; startedMs: number; pid: number }> {
  const port = serverPort();
  const started = performance.now();
  // BENCH_NODE_ARGS (e.g. --cpu-prof) goes to payreq's processes, for profiling.
  const nodeArgs = args[0] === SERVER_ENTRY ? (process.env.BENCH_NODE_ARGS?.split(' ') ?? []) : [];
  const child = spawn(process.execPath, [...nodeArgs, ...args], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}${probe}`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { port, child, startedMs: performance.now() - started, pid: child.pid ?? 0 };
}

/** Resident memory of a process and its children, in MiB (Linux). */
function rssMiB(pid: number): number {
  const pids = [pid];
  for (let i = 0; i < pids.length; i += 1) {
    try {
      const kids = readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim();
      if (kids) pids.push(...kids.split(/\s+/).map(Number));
    } catch {}
  }
  let kb = 0;
  for (const p of pids) {
    try {
      const line = readFileSync(`/proc/${p}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
      kb += Number(line?.[1] ?? 0);
    } catch {}
  }
  return kb / 1024;
}

interface Load {
  readonly rate: number;
  /** Per slice of a paired measurement: its rate over the baseline's slice beside it. */
  readonly sliceRatios?: readonly number[];
  readonly p99: number;
  readonly max: number;
  readonly statuses: Record<string, number>;
}

interface Target {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly connections?: number;
}

/** One autocannon run of `seconds` against `target`; each answer's time goes to `times`. */
function run(target: Target, seconds: number, times?: number[]): Promise<autocannon.Result> {
  const options: autocannon.Options = {
    url: target.url,
    method: target.method ?? 'GET',
    connections: target.connections ?? 10,
    duration: seconds,
    headers: {
      ...(target.body !== undefined && { 'content-type': 'application/json' }),
      ...target.headers,
    },
    ...(target.body !== undefined && { body: JSON.stringify(target.body) }),
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    if (times) {
      instance.on('response', (_client, _status, _bytes, ms) => {
        times.push(ms);
      });
    }
  });
}

/** The 99th percentile of answer times, in whole milliseconds as autocannon reports them. */
function p99Of(times: number[]): number {
  const sorted = Float64Array.from(times).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0);
}

/**
 * Runs taken as one: requests over time, the p99 of every answer when their times were kept
 * (else the worst run's p99), and the slowest answer.
 */
function merge(results: readonly autocannon.Result[], times?: number[]): Load {
  const statuses: Record<string, number> = {};
  let requests = 0;
  let seconds = 0;
  let errors = 0;
  for (const result of results) {
    requests += result.requests.total;
    seconds += result.duration;
    errors += result.errors + result.timeouts;
    for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) {
      statuses[code] = (statuses[code] ?? 0) + (count as { count: number }).count;
    }
  }
  if (errors > 0) statuses.errors = errors;
  return {
    rate: requests / seconds,
    p99:
      times !== undefined && times.length > 0
        ? p99Of(times)
        : Math.max(...results.map((result) => result.latency.p99)),
    max: Math.max(...results.map((result) => result.latency.max)),
    statuses,
  };
}

/** One load after a warm-up of its own (for rows with no baseline to alternate with). */
async function load(target: Target, seconds = SECONDS): Promise<Load> {
  await run(target, WARM_SECONDS);
  return merge([await run(target, seconds)]);
}

/**
 * payreq and its baseline, each warmed up, then measured in alternating slices (A B B A A B …)
 * for `SECONDS` each: the machine's speed drifts over tens of seconds (the bare route's rate
 * moved from 39k to 66k a second between runs while payreq's held), and measured one after the
 * other the two would each catch a different part of the drift.
 */
async function paired(payreq: Target, baseline: Target): Promise<[Load, Load]> {
  await run(payreq, WARM_SECONDS);
  await run(baseline, WARM_SECONDS);
  const slices: [autocannon.Result[], autocannon.Result[]] = [[], []];
  // Every answer's time, on both sides alike, for a p99 over all of a side's slices.
  const times: [number[], number[]] = [[], []];
  for (let slice = 0; slice < SLICES; slice++) {
    const order = slice % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order as (0 | 1)[]) {
      const target = which === 0 ? payreq : baseline;
      slices[which].push(await run(target, SECONDS / SLICES, times[which]));
    }
  }
  const sliceRatios = slices[0].map(
    (result, i) => result.requests.total / (slices[1][i]?.requests.total ?? Number.NaN),
  );
  return [{ ...merge(slices[0], times[0]), sliceRatios }, merge(slices[1], times[1])];
}

/** The lowest and highest of a paired row's slice ratios. */
const spread = (load: Load) => {
  const ratios = load.sliceRatios ?? [];
  return `slices ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
};

const statusNote = (load: Load) =>
  Object.entries(load.statuses)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');

function expectOnly(load: Load, status: string, what: string): void {
  const other = Object.keys(load.statuses).filter((code) => code !== status);
  if (other.length > 0) throw new Error(`${what}: unexpected answers ${statusNote(load)}`);
}

try {
  await buildServer();
  const local = await standIn('base');
  cleanups.push(() => local.chain.close());
  const rpc = await serveJsonRpc(local.chain.provider);
  cleanups.push(() => rpc.close());
  const chainEnv = { ...local.env, RPC_URL_BASE: rpc.url };
  const payer = local.chain.wallets[1]?.address ?? PAYEE;
  const usdc = JSON.parse(local.env.TOKENS_BASE ?? '{}').USDC as `0x${string}`;
  const callData = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [payer] });
  const serverEnv = {
    ...chainEnv,
    SANDBOX: 'false',
    WORKERS: 'false',
    LOG_LEVEL: 'warn',
    SECRET_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_API_KEY: '1000000',
  };

  const stages = process.env.BENCH_STAGES?.split(',') ?? ['postgres', 'startup', 'pglite'];
  // --- Postgres ---
  if (stages.includes('postgres') || stages.includes('startup')) await scratchPostgres();
  if (stages.includes('postgres')) {
    const pgHandle = openPostgres(SCRATCH_URL);
    const tenant = await seed(pgHandle, chainEnv);
    await pgHandle.close();
    await settle();

    const payreq = await startServer(
      [SERVER_ENTRY, 'serve'],
      { ...serverEnv, DATABASE_URL: SCRATCH_URL },
      '/healthz',
    );
    const bare = await startServer(
      [BARE],
      { DATABASE_URL: SCRATCH_URL, RPC_URL: rpc.url, CALL_TO: usdc, CALL_DATA: callData },
      '/bare',
    );
    const api = `http://127.0.0.1:${payreq.port}`;
    const base = `http://127.0.0.1:${bare.port}`;
    const key = { 'x-api-key': tenant.apiKey };
    const linkBody = { requests: [{ destinationId: tenant.destinationId, amount: '12.5' }] };
    const first = await fetch(`${api}/v2/secure-payments`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify(linkBody),
    });
    if (first.status !== 201)
      throw new Error(`creating a link: ${first.status} ${await first.text()}`);
    const link = (await first.json()) as { token: string };

    const [create, insert] = await paired(
      { url: `${api}/v2/secure-payments`, method: 'POST', headers: key, body: linkBody },
      { url: `${base}/insert`, method: 'POST', body: linkBody },
    );
    expectOnly(create, '201', 'POST /v2/secure-payments');
    rows.push({
      bench: 'http',
      name: 'POST /v2/secure-payments, Postgres, c=10',
      value: create.rate,
      unit: 'req/s',
      baseline: { name: 'bare Fastify + one INSERT', value: insert.rate },
      // Concurrent creations are written in groups (src/db/group-commit.ts): one statement and
      // one commit for what the baseline writes in one each.
      goal: { op: '>=', limit: 0.8 },
      note: `p99 ${create.p99} ms (goal ≤ 25), baseline p99 ${insert.p99} ms; ${spread(create)}`,
    });
    rows.push({
      bench: 'http',
      name: 'POST /v2/secure-payments, Postgres, c=10: p99',
      value: create.p99,
      unit: 'ms',
      goal: { op: '<=', limit: 25 },
    });

    const [create100, insert100] = await paired(
      {
        url: `${api}/v2/secure-payments`,
        method: 'POST',
        headers: key,
        body: linkBody,
        connections: 100,
      },
      { url: `${base}/insert`, method: 'POST', body: linkBody, connections: 100 },
    );
    expectOnly(create100, '201', 'POST /v2/secure-payments, c=100');
    rows.push({
      bench: 'http',
      name: 'POST /v2/secure-payments, Postgres, c=100',
      value: create100.rate,
      unit: 'req/s',
      baseline: { name: 'bare Fastify + one INSERT, c=100', value: insert100.rate },
      goal: { op: '>=', limit: 1.0 },
      note: `p99 ${create100.p99} ms (goal ≤ 25), baseline p99 ${insert100.p99} ms; ${spread(create100)}`,
    });
    rows.push({
      bench: 'http',
      name: 'POST /v2/secure-payments, Postgres, c=100: p99',
      value: create100.p99,
      unit: 'ms',
      goal: { op: '<=', limit: 25 },
    });

    const [view, select] = await paired(
      { url: `${api}/v2/secure-payments/${link.token}`, headers: key },
      { url: `${base}/select/seed` },
    );
    expectOnly(view, '200', 'GET /v2/secure-payments/{token}');
    rows.push({
      bench: 'http',
      name: 'GET /v2/secure-payments/{token}, Postgres',
      value: view.rate,
      unit: 'req/s',
      baseline: { name: 'bare Fastify + one SELECT', value: select.rate },
      goal: { op: '>=', limit: 0.5 },
      note: spread(view),
    });

    const [pay, selectCall] = await paired(
      { url: `${api}/v2/secure-payments/${link.token}/pay?wallet=${payer}`, headers: key },
      { url: `${base}/select-call/seed` },
    );
    expectOnly(pay, '200', 'GET /v2/secure-payments/{token}/pay');
    rows.push({
      bench: 'http',
      name: 'GET /v2/secure-payments/{token}/pay?wallet=, Postgres',
      value: pay.rate,
      unit: 'req/s',
      baseline: { name: 'bare Fastify + one SELECT + one eth_call', value: selectCall.rate },
      goal: { op: '>=', limit: 0.4 },
      note: spread(pay),
    });

    const [currencies, bareRoute] = await paired(
      { url: `${api}/v2/currencies?network=base`, headers: key },
      { url: `${base}/bare` },
    );
    expectOnly(currencies, '200', 'GET /v2/currencies');
    rows.push({
      bench: 'http',
      name: 'GET /v2/currencies (API key, nothing else read)',
      value: currencies.rate,
      unit: 'req/s',
      baseline: { name: 'bare Fastify route', value: bareRoute.rate },
      goal: { op: '>=', limit: 0.5 },
      note: spread(currencies),
    });
    payreq.child.kill();
    bare.child.kill();
  }

  // --- Start-up: npm start's server on Postgres without the sandbox, no load ---
  if (stages.includes('startup')) {
    const startups: { ms: number; mib: number }[] = [];
    for (let i = 0; i < 3; i += 1) {
      const fresh = await startServer(
        [SERVER_ENTRY, 'serve'],
        { ...serverEnv, DATABASE_URL: SCRATCH_URL, WORKERS: 'true' },
        '/healthz',
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      startups.push({ ms: fresh.startedMs, mib: rssMiB(fresh.pid) });
      fresh.child.kill();
    }
    const bareStart = await startServer([BARE], { DATABASE_URL: SCRATCH_URL }, '/bare');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bareMiB = rssMiB(bareStart.pid);
    bareStart.child.kill();
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1] ?? Number.NaN;
    rows.push({
      bench: 'http',
      name: 'start-up to listening, Postgres, no sandbox (median of 3)',
      value: median(startups.map((s) => s.ms)),
      unit: 'ms',
      baseline: { name: 'bare Fastify + pg to listening', value: bareStart.startedMs },
      note: 'goal: ≤ 1000 ms absolute (next row)',
    });
    rows.push({
      bench: 'http',
      name: 'start-up to listening (absolute)',
      value: median(startups.map((s) => s.ms)),
      unit: 'ms',
      goal: { op: '<=', limit: 1_000 },
    });
    rows.push({
      bench: 'http',
      name: 'resident memory after start-up (median of 3)',
      value: median(startups.map((s) => s.mib)),
      unit: 'MiB',
      baseline: { name: 'bare Fastify + pg', value: bareMiB },
    });
    rows.push({
      bench: 'http',
      name: 'resident memory after start-up (absolute)',
      value: median(startups.map((s) => s.mib)),
      unit: 'MiB',
      goal: { op: '<=', limit: 200 },
    });
  }

  // --- PGlite, c=100 ---
  if (stages.includes('pglite')) {
    const dataDir = mkdtempSync(join(tmpdir(), 'payreq-bench-pglite-'));
    const bareDir = mkdtempSync(join(tmpdir(), 'payreq-bench-bare-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    cleanups.push(() => rmSync(bareDir, { recursive: true, force: true }));
    const embedded = await openDatabase({ databaseUrl: null, dataDir });
    const embeddedTenant = await seed(embedded, chainEnv);
    await embedded.close();
    const pglite = await startServer(
      [SERVER_ENTRY, 'serve'],
      { ...serverEnv, DATA_DIR: dataDir },
      '/healthz',
    );
    const barePglite = await startServer([BARE], { DATA_DIR: bareDir }, '/bare');
    const embeddedBody = {
      requests: [{ destinationId: embeddedTenant.destinationId, amount: '12.5' }],
    };
    const burst = await load(
      {
        url: `http://127.0.0.1:${pglite.port}/v2/secure-payments`,
        method: 'POST',
        headers: { 'x-api-key': embeddedTenant.apiKey },
        body: embeddedBody,
        connections: 100,
      },
      BURST_SECONDS,
    );
    const bareBurst = await load(
      {
        url: `http://127.0.0.1:${barePglite.port}/insert`,
        method: 'POST',
        body: embeddedBody,
        connections: 100,
      },
      BURST_SECONDS,
    );
    const served = burst.statuses['201'] ?? 0;
    const refused = burst.statuses['503'] ?? 0;
    rows.push({
      bench: 'http',
      name: 'PGlite, c=100, POST /v2/secure-payments: slowest answer',
      value: burst.max,
      unit: 'ms',
      goal: { op: '<=', limit: 1_000 },
      note: `${statusNote(burst)}; p99 ${burst.p99} ms; bare + PGlite INSERT p99 ${bareBurst.p99} ms, slowest ${bareBurst.max} ms`,
    });
    rows.push({
      bench: 'http',
      name: 'PGlite, c=100, POST /v2/secure-payments: links made',
      value: (served / (served + refused || 1)) * burst.rate,
      unit: 'req/s',
      baseline: { name: 'bare Fastify + one PGlite INSERT, c=100', value: bareBurst.rate },
    });
    pglite.child.kill();
    barePglite.child.kill();
  }
} finally {
  for (const child of children) if (child.exitCode === null) child.kill();
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const cleanup of cleanups.reverse()) await cleanup();
}
report('http', rows);
