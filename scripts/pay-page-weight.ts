// The pay page's weight: the compressed bytes of what a payer's browser fetches on first load
// (manifest.firstLoad, from the bundler's import graph). The budget is the issue's: 150 KB of
// compressed JavaScript and CSS together. Read by the weight test and the bench.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { PayPageManifest } from './build-pay-page.ts';

export const WEIGHT_BUDGET_BYTES = 150 * 1024;

export interface PayPageWeight {
  readonly files: readonly { name: string; raw: number; gzip: number; brotli: number }[];
  readonly raw: number;
  readonly gzip: number;
  readonly brotli: number;
}

export function payPageWeight(dir: string): PayPageWeight {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as PayPageManifest;
  const files = manifest.firstLoad.map((name) => {
    const bytes = readFileSync(join(dir, name));
    return {
      name,
      raw: bytes.length,
      gzip: gzipSync(bytes, { level: 9 }).length,
      brotli: brotliCompressSync(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
      }).length,
    };
  });
  const sum = (key: 'raw' | 'gzip' | 'brotli') => files.reduce((total, f) => total + f[key], 0);
  return { files, raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') };
}

/** Throws when the gzip weight of the first load is over `budget` bytes. */
export function assertWithinBudget(weight: PayPageWeight, budget = WEIGHT_BUDGET_BYTES): void {
  if (weight.gzip > budget) {
    const heaviest = [...weight.files].sort((a, b) => b.gzip - a.gzip).slice(0, 3);
    throw new Error(
      `the pay page's first load is ${weight.gzip} bytes gzip, over its budget of ${budget}; heaviest: ${heaviest.map((f) => `${f.name} ${f.gzip}`).join(', ')}`,
    );
  }
}
