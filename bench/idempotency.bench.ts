// npm run bench (idempotency): what an Idempotency-Key costs. The same POST /v2/secure-payments
// to the same payreq process on Postgres, with a fresh key on every request (the link keeps it:
// one index entry more, and a check that no record of another route holds it) and without one,
// measured in alternating slices so the machine's drift falls on both alike. Goal: the keyed
// POST at least 0.9 of the keyless one.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { isNotNull } from 'drizzle-orm';
import { buildServer, SERVER_ENTRY } from '../scripts/build-server.ts';
import { createAccount } from '../src/auth/accounts.ts';
import { systemClock } from '../src/base/clock.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import { parseConfig } from '../src/config/config.ts';
import { migrateDatabase } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { securePayments } from '../src/db/schema.ts';
import { activateDestination } from '../src/destinations/destinations.ts';
import { resolveTarget } from '../src/destinations/target.ts';
import { serveJsonRpc } from '../src/sandbox/rpc-server.ts';
import { standIn } from '../test/chain.ts';
import { serverPort } from './port.ts';
import { type BenchRow, report } from './report.ts';
import { scratchDatabase, settle } from './scratch.ts';

const SCRATCH = 'payreq_bench_idempotency';
/** Seconds each side is measured, in `SLICES` alternating slices, after `WARM_SECONDS` each. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 3);
const SLICES = 8;
const CONNECTIONS = 10;
const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const rows: BenchRow[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];
let child: ChildProcess | undefined;

interface Side {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly fresh: boolean;
}

/** One autocannon run; with `fresh`, every request carries a key never sent before. */
function run(side: Side, seconds: number): Promise<autocannon.Result> {
  const options: autocannon.Options = {
    url: side.url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...side.headers },
    body: side.body,
    // Both sides make each request afresh with a header of their own, so the load generator
    // (on the same two cores) spends alike on both: only the key's meaning differs.
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: {
            ...request.headers,
            [side.fresh ? 'idempotency-key' : 'x-bench-nonce']: randomUUID(),
          },
        }),
      },
    ],
  };
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const statuses = (results: readonly autocannon.Result[]) => {
  const seen: Record<string, number> = {};
  for (const result of results) {
    for (const [code, count] of Object.entries(result.statusCodeStats ?? {})) {
      seen[code] = (seen[code] ?? 0) + (count as { count: number }).count;
    }
    if (result.errors + result.timeouts > 0) seen.errors = (seen.errors ?? 0) + result.errors;
  }
  return seen;
};

try {
  await buildServer();
  const local = await standIn('base');
  cleanups.push(() => local.chain.close());
  const rpc = await serveJsonRpc(local.chain.provider);
  cleanups.push(() => rpc.close());
  const chainEnv: Record<string, string> = { ...local.env, RPC_URL_BASE: rpc.url };
  const scratch = await scratchDatabase(SCRATCH);
  cleanups.push(() => scratch.drop());

  const handle = openPostgres(scratch.url);
  cleanups.push(() => handle.close());
  await migrateDatabase(handle);
  const { accountId, apiKey } = await createAccount(handle.db, 'Bench');
  const chains = createChainRegistry(parseConfig({ ...chainEnv, SANDBOX: 'false' }));
  const usdc = JSON.parse(chainEnv.TOKENS_BASE ?? '{}').USDC as string;
  const { destinationId } = await activateDestination(
    handle.db,
    systemClock,
    accountId,
    resolveTarget(chains, { walletAddress: PAYEE, chainId: 8453, tokenAddress: usdc }),
  );
  await settle();

  const port = serverPort();
  child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_ARGS?.split(' ') ?? []), SERVER_ENTRY, 'serve'],
    {
      env: {
        ...process.env,
        ...chainEnv,
        DATABASE_URL: scratch.url,
        SANDBOX: 'false',
        WORKERS: 'false',
        LOG_LEVEL: 'warn',
        SECRET_KEY: randomBytes(32).toString('hex'),
        RATE_LIMIT_API_KEY: '1000000',
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const api = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`payreq exited ${child.exitCode}`);
    if (
      await fetch(`${api}/healthz`).then(
        (res) => res.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  const body = JSON.stringify({ requests: [{ destinationId, amount: '12.5' }] });
  const common = { url: `${api}/v2/secure-payments`, headers: { 'x-api-key': apiKey }, body };
  const keyed: Side = { ...common, fresh: true };
  const plain: Side = { ...common, fresh: false };
  await run(keyed, WARM_SECONDS);
  await run(plain, WARM_SECONDS);
  const slices: [autocannon.Result[], autocannon.Result[]] = [[], []];
  for (let slice = 0; slice < SLICES; slice++) {
    for (const which of slice % 2 === 0 ? [0, 1] : [1, 0]) {
      slices[which as 0 | 1].push(await run(which === 0 ? keyed : plain, SECONDS / SLICES));
    }
  }
  const rate = (results: readonly autocannon.Result[]) =>
    results.reduce((sum, r) => sum + r.requests.total, 0) /
    results.reduce((sum, r) => sum + r.duration, 0);
  const ratios = slices[0].map((r, i) => r.requests.total / (slices[1][i]?.requests.total ?? 0));
  for (const [i, side] of ['keyed', 'keyless'].entries()) {
    const seen = statuses(slices[i as 0 | 1]);
    if (Object.keys(seen).some((code) => code !== '201')) {
      throw new Error(`${side} POST: unexpected answers ${JSON.stringify(seen)}`);
    }
  }
  // Every keyed request's link kept its key: none ran unrecorded.
  const recorded = await handle.db.$count(securePayments, isNotNull(securePayments.idempotencyKey));
  const keyedTotal = slices[0].reduce((sum, r) => sum + r.requests.total, 0);
  const p99 = Math.max(...slices[0].map((r) => r.latency.p99));
  rows.push({
    bench: 'idempotency',
    name: 'POST /v2/secure-payments with a fresh Idempotency-Key, Postgres, c=10',
    value: rate(slices[0]),
    unit: 'req/s',
    baseline: { name: 'the same POST without a key', value: rate(slices[1]) },
    goal: { op: '>=', limit: 0.9 },
    note: `slices ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; p99 ${p99} ms; ${recorded} keys recorded (≥ ${keyedTotal} measured)`,
  });
} finally {
  if (child !== undefined && child.exitCode === null) child.kill();
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const cleanup of cleanups.reverse()) await cleanup();
}
report('idempotency', rows);
