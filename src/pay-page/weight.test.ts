import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebApp, PAY_PAGE, type WebAppManifest } from '../../scripts/build-web-app.ts';
import {
  assertWithinBudget,
  type WebAppWeight,
  webAppWeight,
} from '../../scripts/web-app-weight.ts';

/**
 * The page's first load stays within 150 KB of compressed JavaScript and CSS: built fresh
 * here, and measured over what a payer's browser fetches for a link (the bundler's import
 * graph from the entry, the wallet chunk included).
 */

let dir: string;
let manifest: WebAppManifest;
let weight: WebAppWeight;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payreq-pay-page-'));
  manifest = await buildWebApp(PAY_PAGE, dir);
  weight = webAppWeight(dir);
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

  it(`is at most ${PAY_PAGE.budgetBytes / 1024} KB gzip on first load`, () => {
    expect(PAY_PAGE.budgetBytes).toBe(150 * 1024);
    expect(() => assertWithinBudget(PAY_PAGE, weight)).not.toThrow();
    expect(weight.gzip).toBeLessThanOrEqual(PAY_PAGE.budgetBytes);
  });

  it('fails a first load heavier than the budget, naming the heaviest files', () => {
    expect(() => assertWithinBudget(PAY_PAGE, weight, weight.gzip - 1)).toThrow(
      new RegExp(
        `the pay page's first load is ${weight.gzip} bytes gzip, over its budget of ${weight.gzip - 1}; heaviest: chunk-`,
      ),
    );
  });
});
