// npm run bench: how long the operator CLI takes to answer `--help` and a usage error, and to
// run a database command on the embedded database (creating an account in a migrated one),
// next to a baseline measured in the same run: starting this Node with nothing to do
// (`node -e 0`). Also a well-formed database command that meets a database held by another
// process (this one) and stops. Nothing listens.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchRow, report } from './report.ts';

const RUNS = 15;
const WARM_UP = 2;
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

const { DATABASE_URL, ...inherited } = process.env;
const benchEnv = (dataDir: string) => ({ ...inherited, DATA_DIR: dataDir, SANDBOX: 'false' });
const held = benchEnv(mkdtempSync(join(tmpdir(), 'payreq-bench-cli-')));
writeFileSync(join(held.DATA_DIR, 'pgdata.lock'), String(process.pid));
const migrated = benchEnv(mkdtempSync(join(tmpdir(), 'payreq-bench-cli-')));

/** Median wall time of starting Node with `args` until it exits, in milliseconds. */
function median(args: readonly string[], expectedStatus: number, env = held): number {
  const times: number[] = [];
  for (let run = 0; run < WARM_UP + RUNS; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    const elapsed = performance.now() - started;
    if (result.status !== expectedStatus) {
      throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    }
    if (run >= WARM_UP) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const created = spawnSync(process.execPath, [CLI, 'migrate'], { env: migrated, encoding: 'utf8' });
if (created.status !== 0)
  throw new Error(`payreq migrate exited ${created.status}: ${created.stderr}`);

const baseline = median(['-e', '0'], 0);
const cases: [string, readonly string[], number, typeof held, number?][] = [
  ['payreq --help', [CLI, '--help'], 0, held, 500],
  ['payreq <unknown command>', [CLI, 'acount', 'create'], 1, held],
  [
    'payreq account create (to the held database)',
    [CLI, 'account', 'create', '--name', 'x'],
    1,
    held,
  ],
  [
    'payreq account create (migrated database)',
    [CLI, 'account', 'create', '--name', 'x'],
    0,
    migrated,
    1_500,
  ],
];
const rows: BenchRow[] = [];
for (const [label, args, status, env, limitMs] of cases) {
  const ms = median(args, status, env);
  rows.push({
    bench: 'cli',
    name: `${label} (median of ${RUNS})`,
    value: ms,
    unit: 'ms',
    baseline: { name: 'node -e 0', value: baseline },
    note: limitMs === undefined ? undefined : `goal: ≤ ${limitMs} ms absolute`,
  });
  if (limitMs !== undefined) {
    rows.push({
      bench: 'cli',
      name: `${label} (absolute)`,
      value: ms,
      unit: 'ms',
      goal: { op: '<=', limit: limitMs },
    });
  }
}
report('cli', rows);
