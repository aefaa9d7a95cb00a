import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRealClock, createTestApp, type TestApp } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { freePort, ROOT } from '../process.ts';
import { testDispatcher } from '../workers.ts';

/**
 * The verification example in docs/webhooks.md, run as written: it must accept a real
 * delivery and refuse a forged or stale one.
 */

let t: TestApp;
let tenant: Tenant;
let example: ChildProcess;
let url: string;
let secret: string;

function exampleSource(): string {
  const docs = readFileSync(join(ROOT, 'docs', 'webhooks.md'), 'utf8');
  const match = /<!-- verify-example[^>]*-->\s*```ts\n([\s\S]*?)```/.exec(docs);
  if (!match?.[1]) throw new Error('no verify-example block in docs/webhooks.md');
  return match[1];
}

beforeAll(async () => {
  t = await createTestApp({ clock: createRealClock() });
  tenant = await createTenant(t.db);
  const port = await freePort();
  url = `http://127.0.0.1:${port}/`;
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/webhook',
    headers: { 'x-api-key': tenant.apiKey },
    payload: { url },
  });
  secret = registered.json().secret;
  const file = join(mkdtempSync(join(tmpdir(), 'payreq-docs-')), 'receiver.ts');
  writeFileSync(file, exampleSource());
  expect(exampleSource().trim().split('\n').length).toBeLessThanOrEqual(22);
  example = spawn(process.execPath, [file], {
    env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await fetch(url, { method: 'POST', body: '{}' });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error('the example receiver did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});
afterAll(async () => {
  example?.kill();
  await t.close();
});

describe('the documented receiver', () => {
  it('accepts a delivery signed by payreq', async () => {
    // Real time: the example checks the timestamp against its own clock.
    const dispatcher = testDispatcher(t);
    const sent = await t.app.inject({
      method: 'POST',
      url: '/v1/webhook/test',
      headers: { 'x-api-key': tenant.apiKey },
      payload: { eventType: 'payment.confirmed' },
    });
    expect(sent.json().sent).toBe(1);
    await t.db.execute(
      `update webhook_deliveries set next_attempt_at = now() - interval '1 second'` as never,
    );
    expect(await dispatcher.runOnce()).toBe(1);
    const [hook] = (
      await t.app.inject({
        method: 'GET',
        url: '/v1/webhook',
        headers: { 'x-api-key': tenant.apiKey },
      })
    ).json();
    const log = await t.app.inject({
      method: 'GET',
      url: `/v1/webhook/${hook.id}/deliveries`,
      headers: { 'x-api-key': tenant.apiKey },
    });
    expect(log.json().deliveries[0]).toMatchObject({ status: 'delivered', lastStatusCode: 200 });
  });

  it('refuses a forged signature and a stale timestamp', async () => {
    const body = JSON.stringify({ event: 'payment.confirmed' });
    const now = Math.floor(Date.now() / 1000);
    const sign = (key: string, at: number) =>
      createHmac('sha256', key).update(`${at}.${body}`).digest('hex');
    const post = (signature: string, at: number) =>
      fetch(url, {
        method: 'POST',
        body,
        headers: {
          'x-service-timestamp': String(at),
          'x-service-signature-v2': signature,
          'x-service-delivery': 'x',
        },
      });
    expect((await post(sign(secret, now), now)).status).toBe(200);
    expect((await post(sign('whsec_someone_else', now), now)).status).toBe(401);
    expect((await post(sign(secret, now - 3_600), now - 3_600)).status).toBe(401);
  });
});
