import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebApp, DASHBOARD, type WebAppManifest } from '../../scripts/build-web-app.ts';
import {
  assertWithinBudget,
  type WebAppWeight,
  webAppWeight,
} from '../../scripts/web-app-weight.ts';

/**
 * The dashboard's first load stays within 200 KB of compressed JavaScript and CSS (#39): built
 * fresh here, measured over the bundler's import graph from its entry.
 */

let dir: string;
let manifest: WebAppManifest;
let weight: WebAppWeight;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payreq-dashboard-'));
  manifest = await buildWebApp(DASHBOARD, dir);
  weight = webAppWeight(dir);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the dashboard’s weight', () => {
  it('counts the styles and the entry with all it imports', () => {
    const names = weight.files.map((f) => f.name);
    expect(names).toContain(manifest.styles);
    expect(names).toContain(manifest.main);
    for (const name of names) expect(manifest.files).toContain(name);
  });

  it(`is at most ${DASHBOARD.budgetBytes / 1024} KB gzip on first load`, () => {
    expect(DASHBOARD.budgetBytes).toBe(200 * 1024);
    expect(() => assertWithinBudget(DASHBOARD, weight)).not.toThrow();
    // Preact and the pages: far below the budget, which the chart library will share.
    expect(weight.gzip).toBeGreaterThan(4 * 1024);
  });

  it('fails a first load heavier than the budget, naming the app', () => {
    expect(() => assertWithinBudget(DASHBOARD, weight, weight.gzip - 1)).toThrow(
      `the dashboard's first load is ${weight.gzip} bytes gzip`,
    );
  });
});
