import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPayPage, type PayPageManifest } from '../../scripts/build-pay-page.ts';
import {
  assertWithinBudget,
  type PayPageWeight,
  payPageWeight,
  WEIGHT_BUDGET_BYTES,
} from '../../scripts/pay-page-weight.ts';

/**
 * The page's first load stays within 150 KB of compressed JavaScript and CSS: built fresh
 * here, and measured over what a payer's browser fetches for a link (the bundler's import
 * graph from the entry, the wallet chunk included).
 */

let dir: string;
let manifest: PayPageManifest;
let weight: PayPageWeight;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payreq-pay-page-'));
  manifest = await buildPayPage(dir);
  weight = payPageWeight(dir);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the pay page’s weight', () => {
  it('counts the styles, the entry and the wallet chunk it loads', () => {
    const names = weight.files.map((f) => f.name);
    expect(names).toContain(manifest.styles);
    expect(names).toContain(manifest.main);
    // Besides the entry and the styles: at least the wallet chunk and viem.
    expect(names.filter((n) => n.startsWith('chunk-')).length).toBeGreaterThanOrEqual(2);
    for (const name of names) expect(manifest.files).toContain(name);
  });

  it(`is at most ${WEIGHT_BUDGET_BYTES / 1024} KB gzip on first load`, () => {
    expect(() => assertWithinBudget(weight)).not.toThrow();
    expect(weight.gzip).toBeLessThanOrEqual(WEIGHT_BUDGET_BYTES);
  });

  it('fails a first load heavier than the budget, naming the heaviest files', () => {
    expect(() => assertWithinBudget(weight, weight.gzip - 1)).toThrow(
      new RegExp(
        `first load is ${weight.gzip} bytes gzip, over its budget of ${weight.gzip - 1}; heaviest: chunk-`,
      ),
    );
  });
});
