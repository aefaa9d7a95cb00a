import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One measurement next to its baseline from the same run. `ratio` is payreq ÷ baseline for
 * rates (higher is better) and times (lower is better) alike; `goal` says which way it must lie.
 */
export interface BenchRow {
  readonly bench: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: { readonly name: string; readonly value: number } | undefined;
  /** `>= 0.5`: ratio at least 0.5; `<= 2`: at most 2; on `value` when there is no baseline. */
  readonly goal?: { readonly op: '>=' | '<='; readonly limit: number } | undefined;
  readonly note?: string | undefined;
  /**
   * The ratio when it is not `value ÷ baseline`: the median of each round's own ratio to the
   * baseline's round beside it, where rounds are short and the machine's speed drifts.
   */
  readonly pairedRatio?: number | undefined;
}

export interface ReportedRow extends BenchRow {
  readonly ratio: number | null;
  readonly met: boolean | null;
}

export const RESULTS_DIR = new URL('./results/', import.meta.url).pathname;

export function withRatio(row: BenchRow): ReportedRow {
  const ratio = row.baseline ? (row.pairedRatio ?? row.value / row.baseline.value) : null;
  const measured = ratio ?? row.value;
  const met = row.goal
    ? row.goal.op === '>='
      ? measured >= row.goal.limit
      : measured <= row.goal.limit
    : null;
  return { ...row, ratio, met };
}

const fixed = (value: number) =>
  Math.abs(value) >= 100
    ? value.toFixed(0)
    : Math.abs(value) >= 10
      ? value.toFixed(1)
      : value.toFixed(2);

/** One line per row, as `npm run bench` prints them. */
export function formatRow(row: ReportedRow): string {
  const goal = row.goal ? `${row.goal.op} ${row.goal.limit}` : '';
  const verdict = row.met === null ? '' : row.met ? 'ok' : 'MISSED';
  return [
    row.name.padEnd(58),
    `${fixed(row.value)} ${row.unit}`.padStart(16),
    (row.baseline ? `${fixed(row.baseline.value)} ${row.unit}` : '').padStart(16),
    (row.ratio === null ? '' : row.ratio.toFixed(3)).padStart(8),
    goal.padStart(8),
    verdict.padStart(7),
  ].join(' ');
}

export const HEADER = [
  'measurement'.padEnd(58),
  'payreq'.padStart(16),
  'baseline'.padStart(16),
  'ratio'.padStart(8),
  'goal'.padStart(8),
  ''.padStart(7),
].join(' ');

/**
 * Prints a bench's rows and writes them to bench/results/<bench>.json, where `npm run bench`
 * collects every bench's rows into one table.
 */
export function report(bench: string, rows: readonly BenchRow[]): void {
  const reported = rows.map(withRatio);
  process.stdout.write(`\n${bench}\n${HEADER}\n`);
  for (const row of reported) {
    process.stdout.write(`${formatRow(row)}\n`);
    if (row.baseline) process.stdout.write(`${''.padEnd(4)}baseline: ${row.baseline.name}\n`);
    if (row.note) process.stdout.write(`${''.padEnd(4)}${row.note}\n`);
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${bench}.json`), `${JSON.stringify(reported, null, 2)}\n`);
}
