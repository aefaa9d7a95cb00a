import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/auth/accounts.ts';
import { createClientId } from '../../src/auth/client-ids.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { launchChromium } from '../browser.ts';

/**
 * A real browser calling the API from another origin: the page on the client ID's allowed
 * origin creates a link, reads it and gets its calldata with fetch; the same page served from
 * another origin (localhost instead of 127.0.0.1: another origin to a browser) is stopped by
 * the browser itself; and a route for server-side keys grants no origin at all.
 */

const PAYEE = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

interface PageResult {
  readonly ok: boolean;
  readonly status?: number;
  readonly body?: Record<string, unknown>;
  readonly error?: string;
  readonly exposedRequestId?: string | null;
}

describe('a browser page on another origin', () => {
  let t: TestApp;
  let browser: Browser;
  let pages: Server;
  let api: string;
  let pagePort: number;
  let clientId: string;
  let apiKey: string;
  let destinationId: string;

  beforeAll(async () => {
    t = await createTestApp({ clock: createRealClock() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    pages = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>shop</title><p>shop</p>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagePort = (pages.address() as AddressInfo).port;

    const account = await createAccount(t.db, 'Browser shop');
    apiKey = account.apiKey;
    clientId = (
      await createClientId(t.db, {
        accountId: account.accountId,
        label: 'Shop page',
        allowedDomains: [`http://127.0.0.1:${pagePort}`],
      })
    ).clientId;
    const target = resolveTarget(t.chains, {
      walletAddress: PAYEE,
      chainId: 8453,
      tokenAddress: USDC_BASE,
    });
    destinationId = (await activateDestination(t.db, t.clock, account.accountId, target))
      .destinationId;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
    await t?.close();
  });

  /** Runs `fetch` inside a page served from `origin`, as the shop's own script would. */
  async function fetchFrom(
    origin: string,
    request: { path: string; method?: string; headers: Record<string, string>; body?: unknown },
  ): Promise<PageResult> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(
        async ({ url, method, headers, body }) => {
          try {
            const response = await fetch(url, {
              method,
              headers: {
                ...headers,
                ...(body !== undefined && { 'content-type': 'application/json' }),
              },
              ...(body !== undefined && { body: JSON.stringify(body) }),
            });
            return {
              ok: true,
              status: response.status,
              body: (await response.json()) as Record<string, unknown>,
              exposedRequestId: response.headers.get('x-request-id'),
            };
          } catch (error) {
            return { ok: false, error: String(error) };
          }
        },
        {
          url: `${api}${request.path}`,
          method: request.method ?? 'GET',
          headers: request.headers,
          body: request.body,
        },
      );
    } finally {
      await page.close();
    }
  }

  it('creates a link, reads it and gets its calldata from the allowed origin', async () => {
    const origin = `http://127.0.0.1:${pagePort}`;
    const headers = { 'x-client-id': clientId };
    const created = await fetchFrom(origin, {
      path: '/v2/secure-payments',
      method: 'POST',
      headers,
      body: { requests: [{ destinationId, amount: '12.5' }] },
    });
    expect(created.ok, created.error).toBe(true);
    expect(created.status).toBe(201);
    expect(created.exposedRequestId).toMatch(/^[0-9A-Z]{26}$/);
    const token = String(created.body?.token);

    const shown = await fetchFrom(origin, { path: `/v2/secure-payments/${token}`, headers });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ paymentType: 'single', amount: '12.5', payee: PAYEE });

    const calldata = await fetchFrom(origin, { path: `/v2/secure-payments/${token}/pay`, headers });
    expect(calldata.status).toBe(200);
    expect(calldata.body).toMatchObject({ paymentType: 'single' });
    expect(calldata.body?.transactions).toHaveLength(2);
  });

  it('is blocked by the browser when the same page comes from another origin', async () => {
    const result = await fetchFrom(`http://localhost:${pagePort}`, {
      path: '/v2/secure-payments',
      method: 'POST',
      headers: { 'x-client-id': clientId },
      body: { requests: [{ destinationId, amount: '1' }] },
    });
    expect(result.ok).toBe(false);
    expect(result.error).toContain('Failed to fetch');
  });

  it('grants no origin on a route for server-side keys', async () => {
    const result = await fetchFrom(`http://127.0.0.1:${pagePort}`, {
      path: '/v2/client-ids',
      headers: { 'x-api-key': apiKey },
    });
    expect(result.ok).toBe(false);
    expect(result.error).toContain('Failed to fetch');
  });
});
