import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTimed } from '../../base/timed-signature.ts';
import { SecretText } from '../../config/crosschain.ts';
import { createComplianceProvider, ProviderRefusal } from '../../payer/provider.ts';
import { type FakeCompliance, startFakeCompliance } from './fake-compliance.ts';

/**
 * The fake compliance provider as the sandbox runs it: deciding by itself from the magic values,
 * steered over HTTP by its control endpoints, its callbacks signed as the server checks them,
 * and spoken to by the real adapter.
 */

const SECRET = 'fake-compliance-test-secret';
const received: { body: Record<string, unknown>; signed: boolean }[] = [];
let fake: FakeCompliance;
let closeReceiver: () => void;

async function until(count: number): Promise<void> {
  for (let i = 0; i < 100 && received.length < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(received.length).toBeGreaterThanOrEqual(count);
}

beforeAll(async () => {
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => {
      raw += chunk.toString('utf8');
    });
    request.on('end', () => {
      const header = request.headers['x-compliance-signature'];
      received.push({
        body: JSON.parse(raw),
        signed: verifyTimed(
          SECRET,
          typeof header === 'string' ? header : undefined,
          raw,
          Date.now() / 1000,
        ),
      });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeReceiver = () => server.close();
  fake = await startFakeCompliance({
    webhookSecret: SECRET,
    apiKey: 'k',
    autoDecideMs: 30,
    callbackUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
  });
});
afterAll(async () => {
  await fake.close();
  closeReceiver();
});

const provider = () =>
  createComplianceProvider({ url: fake.url, apiKey: null, webhookSecret: null, timeoutMs: 2000 });

const customer = (lastName: string) => ({
  type: 'individual' as const,
  first_name: 'Ada',
  last_name: lastName,
  email: 'ada@example.com',
  phone: '+15555550100',
  birth_date: '1990-01-01',
  nationality: 'US',
  tax_identification_number: '000-00-0000',
  address: { street_line_1: '1 Main St', city: 'Springfield', postal_code: '1', country: 'US' },
});

describe('the fake compliance provider', () => {
  it('refuses calls without its API key', async () => {
    await expect(provider().createCustomer(customer('Lovelace'), 'x')).rejects.toBeInstanceOf(
      ProviderRefusal,
    );
  });

  it('decides KYC by itself from the last name, and calls back signed', async () => {
    const client = createComplianceProvider({
      url: fake.url,
      apiKey: new SecretText('k'),
      webhookSecret: null,
      timeoutMs: 2000,
    });
    const outcomes: Record<string, string> = {};
    for (const name of ['Lovelace', 'Reject', 'Retry']) {
      const created = await client.createCustomer(customer(name), `idem-${name}`);
      expect(await client.createCustomer(customer(name), `idem-${name}`)).toEqual(created);
      const links = await client.links(created.id);
      expect(links.kycUrl).toBe(`${fake.url}/kyc/${created.id}`);
      outcomes[created.id] = name;
    }
    await until(3);
    const verdicts = Object.fromEntries(
      received.map(({ body }) => {
        const object = body.event_object as { id: string; kyc_status: string };
        return [outcomes[object.id], object.kyc_status];
      }),
    );
    expect(verdicts).toEqual({ Lovelace: 'approved', Reject: 'rejected', Retry: 'incomplete' });
    expect(received.every((r) => r.signed && r.body.event_type === 'customer.updated')).toBe(true);

    const id = Object.keys(outcomes)[0] ?? '';
    const account = (number: string | undefined) => ({
      bank_name: 'Chase',
      account_owner_name: 'Ada',
      account_owner_type: 'individual' as const,
      currency: 'usd',
      rails: 'local' as const,
      account_number: number,
      owner_birth_date: '1990-01-01',
      address: { street_line_1: '1 Main St', city: 'Springfield', postal_code: '1', country: 'US' },
    });
    await expect(client.createAccount(id, account(undefined), 'a0')).rejects.toBeInstanceOf(
      ProviderRefusal,
    );
    await expect(client.createAccount(id, account('12ab'), 'a1')).rejects.toBeInstanceOf(
      ProviderRefusal,
    );
    const failing = await client.createAccount(id, account('000000000'), 'a2');
    expect(failing.status).toBe('pending');
    await until(4);
    expect(received[3]?.body.event_object).toEqual({
      id: failing.id,
      customer_id: id,
      status: 'failed',
    });

    // The control endpoints, over HTTP.
    const res = await fetch(`${fake.url}/control/external_accounts/${failing.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'approved' }),
    });
    expect(res.status).toBe(202);
    await until(5);
    expect(received[4]?.body.event_object).toMatchObject({ id: failing.id, status: 'approved' });
    const refused = await fetch(`${fake.url}/control/customers/${id}/kyc`, {
      method: 'POST',
      body: JSON.stringify({ status: 'maybe' }),
    });
    expect(refused.status).toBe(400);
  });
});
