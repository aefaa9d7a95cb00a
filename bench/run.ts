// npm run bench: every bench in turn, each in a process of its own, then one table of every
// row with its baseline and goal, also written to bench/results/bench.json.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatRow, HEADER, RESULTS_DIR, type ReportedRow } from './report.ts';

const BENCHES = [
  'http',
  'idempotency',
  'lists',
  'webhooks',
  'backlog',
  'rate-limit',
  'cli',
  'pay-page',
  'dashboard',
  'batch-calldata',
  'multicall-calldata',
  'payment-options',
];

const only = process.argv.slice(2);
const chosen = only.length > 0 ? BENCHES.filter((name) => only.includes(name)) : BENCHES;
const started = performance.now();
const failed: string[] = [];
for (const name of chosen) {
  const file = new URL(`./${name}.bench.ts`, import.meta.url).pathname;
  if (!existsSync(file)) continue;
  rmSync(join(RESULTS_DIR, `${name}.json`), { force: true });
  const result = spawnSync(process.execPath, [file], { stdio: 'inherit' });
  if (result.status !== 0) failed.push(name);
}

const rows: ReportedRow[] = [];
for (const name of chosen) {
  const path = join(RESULTS_DIR, `${name}.json`);
  if (existsSync(path)) rows.push(...(JSON.parse(readFileSync(path, 'utf8')) as ReportedRow[]));
}
const minutes = (performance.now() - started) / 60_000;
const print = (line: string) => process.stdout.write(`${line}\n`);
print(`\nall benchmarks (${minutes.toFixed(1)} min)\n${HEADER}`);
let bench = '';
for (const row of rows) {
  if (row.bench !== bench) {
    bench = row.bench;
    print(`[${bench}]`);
  }
  print(formatRow(row));
}
const missed = rows.filter((row) => row.met === false).length;
const goals = rows.filter((row) => row.met !== null).length;
print(
  `\n${goals - missed} of ${goals} goals met${failed.length ? `; failed: ${failed.join(', ')}` : ''}`,
);
writeFileSync(
  join(RESULTS_DIR, 'bench.json'),
  `${JSON.stringify({ at: new Date().toISOString(), minutes, rows }, null, 2)}\n`,
);
if (failed.length > 0) process.exitCode = 1;
