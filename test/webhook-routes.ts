import { afterAll, beforeAll, expect } from 'vitest';
import { createDispatcher, type Dispatcher } from '../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from './app.ts';
import { SHOP_ORIGIN, type Tenant } from './fixtures.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/**
 * What the tests of the `/v1/webhook` routes share (src/webhooks/routes-*.test.ts): the app
 * with local webhooks allowed (and, for the URL rules, one without), a dispatcher over it, real
 * loopback receivers, and the routes' calls.
 */

export const HTTPS_ONLY =
  'must use https (http only for localhost when ALLOW_LOCAL_WEBHOOKS is on)';
export const PRIVATE = 'must not point at a private or loopback address';
export const WEBHOOK_NOT_FOUND = {
  statusCode: 404,
  message: 'Webhook not found',
  error: 'Not Found',
  code: 'webhook_not_found',
};
export const DELIVERY_NOT_FOUND = {
  statusCode: 404,
  message: 'Delivery not found',
  error: 'Not Found',
  code: 'delivery_not_found',
};

export let t: TestApp; // ALLOW_LOCAL_WEBHOOKS on
let strict: TestApp | undefined; // ALLOW_LOCAL_WEBHOOKS off, when asked for
export let dispatcher: Dispatcher;
const receivers: Receiver[] = [];

/**
 * Registers the file's app (ALLOW_LOCAL_WEBHOOKS on) and its dispatcher; with `strict`, also an
 * app with ALLOW_LOCAL_WEBHOOKS off. Each test file calls it once.
 */
export function setupWebhookApps(options: { strict?: boolean } = {}): void {
  beforeAll(async () => {
    [t, strict] = await Promise.all([
      createTestApp({ env: { ALLOW_LOCAL_WEBHOOKS: 'true' } }),
      options.strict ? createTestApp({ env: { ALLOW_LOCAL_WEBHOOKS: 'false' } }) : undefined,
    ]);
    dispatcher = createDispatcher({
      db: t.db,
      clock: t.clock,
      logger: t.app.log as never,
      secretBox: t.secretBox,
      config: t.config.webhooks,
      random: () => 0.5, // no jitter: retry times are exact
    });
  });
  afterAll(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await Promise.all([t.close(), strict?.close()]);
  });
}

/** The app with ALLOW_LOCAL_WEBHOOKS off: `setupWebhookApps({ strict: true })` makes it. */
export function strictApp(): TestApp {
  if (strict === undefined) throw new Error('call setupWebhookApps({ strict: true }) first');
  return strict;
}

export async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

export type Headers = Record<string, string>;
export const asKey = (tenant: Tenant): Headers => ({ 'x-api-key': tenant.apiKey });
export const asBackend = (tenant: Tenant): Headers => ({ 'x-client-id': tenant.backendClientId });
export const asBrowser = (tenant: Tenant): Headers => ({
  'x-client-id': tenant.browserClientId,
  origin: SHOP_ORIGIN,
});

export function call(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  headers: Headers,
  payload?: object,
  app: TestApp = t,
) {
  return app.app.inject({ method, url, headers, ...(payload && { payload }) });
}

export async function register(
  headers: Headers,
  url: string,
  app: TestApp = t,
): Promise<{ id: string; secret: string }> {
  const res = await call('POST', '/v1/webhook', headers, { url }, app);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export function validationFailed(field: string, message: string) {
  return {
    statusCode: 400,
    message: 'Validation failed',
    error: 'Bad Request',
    code: 'validation_failed',
    errors: [{ field, message }],
  };
}

export async function listIds(headers: Headers): Promise<string[]> {
  const res = await call('GET', '/v1/webhook', headers);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { id: string }[]).map((w) => w.id).sort();
}
