import type { KeyRing } from '../src/base/key-ring.ts';
import { createLogger } from '../src/base/logger.ts';
import {
  type FakeCompliance,
  startFakeCompliance,
} from '../src/sandbox/compliance/fake-compliance.ts';
import { createDispatcher, type Dispatcher } from '../src/webhooks/dispatcher.ts';
import { createRealClock, createTestApp, type TestApp } from './app.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

/**
 * Payers over real HTTP (src/payer/): the app listening on loopback with the fake compliance
 * provider (which calls it back, signed), a running webhook dispatcher, and tenants each with a
 * webhook receiver that checks the signatures as a reference receiver does.
 */

const CALLBACK_SECRET = 'test-compliance-callback-secret';
const PROVIDER_KEY = 'test-provider-key';

export interface PayerWorld {
  readonly t: TestApp;
  readonly fake: FakeCompliance;
  readonly baseUrl: string;
  readonly dispatcher: Dispatcher;
  /** A new account with a platform-wide webhook to its own receiver. */
  tenant(): Promise<{ tenant: Tenant; receiver: Receiver }>;
  call(
    method: string,
    path: string,
    apiKey: string | null,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startPayerWorld(options: { keyRing?: KeyRing } = {}): Promise<PayerWorld> {
  const fake = await startFakeCompliance({ webhookSecret: CALLBACK_SECRET, apiKey: PROVIDER_KEY });
  const t = await createTestApp({
    clock: createRealClock(),
    ...(options.keyRing && { keyRing: options.keyRing }),
    env: {
      COMPLIANCE_URL: fake.url,
      COMPLIANCE_API_KEY: PROVIDER_KEY,
      COMPLIANCE_WEBHOOK_SECRET: CALLBACK_SECRET,
      ALLOW_LOCAL_WEBHOOKS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
    },
  });
  const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  fake.setCallbackUrl(`${baseUrl}/v2/payer/compliance-callbacks`);
  const dispatcher = createDispatcher({
    db: t.database.queue,
    clock: t.clock,
    // Into the app's own log capture: a privacy test reads the dispatcher's lines too.
    logger: createLogger('info', t.logs),
    secretBox: t.secretBox,
    config: t.config.webhooks,
  });
  dispatcher.start(50);
  const receivers: Receiver[] = [];
  async function call(method: string, path: string, apiKey: string | null, body?: unknown) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(apiKey !== null && { 'x-api-key': apiKey }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : JSON.parse(text) };
  }
  return {
    t,
    fake,
    baseUrl,
    dispatcher,
    call,
    async tenant() {
      const tenant = await createTenant(t.db);
      const receiver = await startReceiver();
      receivers.push(receiver);
      const registered = await call('POST', '/v1/webhook', tenant.apiKey, { url: receiver.url });
      if (registered.status !== 201) throw new Error(`webhook: ${registered.status}`);
      receiver.verifyWith(String(registered.body.secret));
      return { tenant, receiver };
    },
    async close() {
      await dispatcher.stop();
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await fake.close();
      await t.close();
    },
  };
}

/** A KYC submission with recognisable personal values (`tag` makes them unique to a test). */
export function kycBody(clientUserId: string, tag: string, overrides: Record<string, string> = {}) {
  return {
    clientUserId,
    email: `grace.${tag}@hopper.example`,
    firstName: `Grace${tag}`,
    lastName: `Hopper${tag}`,
    beneficiaryType: 'individual',
    dateOfBirth: '1906-12-09',
    addressLine1: `${tag} Navy Yard Road`,
    city: `Arlington${tag}`,
    state: 'VA',
    postcode: `2220${tag.length}`,
    country: 'US',
    nationality: 'US',
    phone: '+15555550123',
    ssn: `078-05-${tag}`,
    ...overrides,
  };
}

export function bankBody(tag: string, overrides: Record<string, string> = {}) {
  return {
    bankName: 'Chase',
    accountName: `Grace Hopper ${tag}`,
    accountNumber: `12345${tag.replace(/\D/g, '').padEnd(4, '7')}`,
    routingNumber: '021000021',
    beneficiaryType: 'individual',
    currency: 'usd',
    addressLine1: `${tag} Navy Yard Road`,
    city: `Arlington${tag}`,
    country: 'US',
    dateOfBirth: '1906-12-09',
    postalCode: '22202',
    documentNumber: `P${tag}998877`,
    documentType: 'passport',
    ...overrides,
  };
}
