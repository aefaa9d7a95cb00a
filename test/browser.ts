import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * A real headless Chromium for browser tests. A system Chromium is used when the machine has
 * one; otherwise the one shipped inside the `@sparticuz/chromium` npm package (unpacked to
 * /tmp on first use), so a fresh machine needs nothing beyond `npm install`.
 */

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** Quiet, offline, and safe to run as root in a container. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** The machine's own Chromium, if it has one. */
export function chromiumOfSystem(): string | undefined {
  return SYSTEM_CHROMIUM.find((path) => existsSync(path));
}

export async function launchChromium(): Promise<Browser> {
  const system = chromiumOfSystem();
  if (system) return chromium.launch({ executablePath: system, headless: true, args: FLAGS });
  // Only the binary: the package's own flag set is for serverless hosts and includes
  // --disable-web-security, which would switch off the very CORS checks tests rely on.
  const { default: packaged } = await import('@sparticuz/chromium');
  return chromium.launch({
    executablePath: await packaged.executablePath(),
    headless: true,
    args: FLAGS,
  });
}
