import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type { TestWallet } from './wallet.ts';

/** What the pay page tests read off a page in Chromium, and ask of the test wallet. */

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const screen = (page: Page, name: string) =>
  page.locator(`[data-screen="${name}"]`).waitFor({ timeout: 60_000 });

export async function text(page: Page, selector: string): Promise<string> {
  const element = page.locator(selector).first();
  await element.waitFor({ timeout: 30_000 });
  return ((await element.textContent()) ?? '').trim();
}

export async function texts(page: Page, selector: string, count: number): Promise<string[]> {
  await page
    .locator(selector)
    .nth(count - 1)
    .waitFor({ timeout: 30_000 });
  return (await page.locator(selector).allTextContents()).map((t) => t.trim());
}

/** How many transactions the page asked the wallet to send. */
export function sends(wallet: TestWallet | undefined): number {
  return wallet?.calls.filter((c) => c.method === 'eth_sendTransaction').length ?? 0;
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol, which the page's CSP does not govern.
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<AxeResults> } }).axe;
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact}: ${v.id}`);
}

interface AxeResults {
  readonly violations: readonly { id: string; impact: string | null }[];
}
