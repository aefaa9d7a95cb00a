// A browser app's weight: the compressed bytes of what a browser fetches on first load
// (manifest.firstLoad, from the bundler's import graph), against the app's budget of compressed
// JavaScript and CSS together (`WebApp.budgetBytes`). Read by the weight tests and the bench.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { WebApp, WebAppManifest } from './build-web-app.ts';

export interface WebAppWeight {
  readonly files: readonly { name: string; raw: number; gzip: number; brotli: number }[];
  readonly raw: number;
  readonly gzip: number;
  readonly brotli: number;
}

export function webAppWeight(dir: string): WebAppWeight {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as WebAppManifest;
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

/** Throws when the gzip weight of the app's first load is over `budget` bytes. */
export function assertWithinBudget(
  app: WebApp,
  weight: WebAppWeight,
  budget = app.budgetBytes,
): void {
  if (weight.gzip > budget) {
    const heaviest = [...weight.files].sort((a, b) => b.gzip - a.gzip).slice(0, 3);
    throw new Error(
      `${app.title}'s first load is ${weight.gzip} bytes gzip, over its budget of ${budget}; heaviest: ${heaviest.map((f) => `${f.name} ${f.gzip}`).join(', ')}`,
    );
  }
}
