// npm run bench: how long the operator CLI takes to answer `--help` and a usage error, next to
// a baseline measured in the same run: starting this Node with nothing to do (`node -e 0`).
// For scale, also a well-formed database command, which loads drizzle and PGlite before it
// meets a database held by another process (this one) and stops. Nothing listens.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = 15;
const WARM_UP = 2;
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

const dataDir = mkdtempSync(join(tmpdir(), 'payreq-bench-cli-'));
writeFileSync(join(dataDir, 'pgdata.lock'), String(process.pid));
const env = { ...process.env, DATA_DIR: dataDir, SANDBOX: 'false' };
const print = (line: string) => process.stdout.write(`${line}\n`);

/** Median wall time of starting Node with `args` until it exits, in milliseconds. */
function median(args: readonly string[], expectedStatus: number): number {
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

const baseline = median(['-e', '0'], 0);
const cases: [string, readonly string[], number][] = [
  ['payreq --help', [CLI, '--help'], 0],
  ['payreq <unknown command>', [CLI, 'acount', 'create'], 1],
  ['payreq account create (to the held database)', [CLI, 'account', 'create', '--name', 'x'], 1],
];
print(`node -e 0: ${baseline.toFixed(0)} ms (median of ${RUNS})`);
for (const [label, args, status] of cases) {
  const ms = median(args, status);
  print(`${label}: ${ms.toFixed(0)} ms (ratio ${(ms / baseline).toFixed(2)} to node -e 0)`);
}
