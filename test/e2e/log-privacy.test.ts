import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/auth/api-keys.ts';
import { statementPurpose } from '../../src/base/logger.ts';
import { apiKeys, requests } from '../../src/db/schema.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * A failing insert answers the generic 500 and logs what it was doing and why it failed, never
 * its parameters: not the customer's name and e-mail, not an API key's prefix or hash.
 */

const NAME = 'Ada Lovelace-Byron';
const EMAIL = 'ada.lovelace@analytical.example';

describe('logs of a failing insert', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp({
      extend: (app, deps) => {
        // Inserts a copy of an existing request (same id: a unique violation) with PII in it.
        app.post('/test/duplicate-request', async () => {
          const [existing] = await deps.db.select().from(requests).limit(1);
          if (!existing) throw new Error('no request to copy');
          const { id: _id, createdAt: _createdAt, ...copy } = existing;
          await deps.db.insert(requests).values({
            ...copy,
            customerInfo: { firstName: NAME, email: EMAIL },
          });
          return { inserted: true };
        });
        // Inserts an API key row whose prefix is already taken by the same account twice.
        app.post('/test/duplicate-key', async () => {
          const [key] = await deps.db.select().from(apiKeys).limit(1);
          if (!key) throw new Error('no key to copy');
          await deps.db.insert(apiKeys).values({ ...key });
          return { inserted: true };
        });
      },
    });
    tenant = await createTenant(t.db);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/request',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        amount: '1',
        invoiceCurrency: 'USDC-base',
        paymentCurrency: 'USDC-base',
        payee: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    await issueApiKey(t.db, tenant.accountId, 'second');
  });
  afterAll(() => t.close());

  it('logs the statement’s purpose and the constraint, none of its parameters', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/test/duplicate-request' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      message: 'Internal server error',
      error: 'Internal Server Error',
      code: 'internal_error',
    });
    const [row] = await t.db.select().from(requests).limit(1);
    const logged = t.logs.text();
    for (const parameter of [
      NAME,
      EMAIL,
      row?.requestId,
      row?.salt,
      row?.payee,
      row?.paymentReference,
    ]) {
      expect(logged, String(parameter)).not.toContain(String(parameter));
    }
    const entry = t.logs.entries().find((e) => e.msg === 'unhandled error');
    expect(entry?.err).toMatchObject({
      type: 'DatabaseError',
      message: 'database error during insert into requests',
      purpose: 'insert into requests',
      code: '23505',
      table: 'requests',
    });
    const err = entry?.err as { constraint?: string } | undefined;
    expect(String(err?.constraint)).toMatch(/request_id/);
  });

  it('keeps an API key’s prefix and hash out of the log', async () => {
    const [key] = await t.db.select().from(apiKeys).where(eq(apiKeys.accountId, tenant.accountId));
    const res = await t.app.inject({ method: 'POST', url: '/test/duplicate-key' });
    expect(res.statusCode).toBe(500);
    const logged = t.logs.text();
    expect(logged).not.toContain(String(key?.keyHash));
    expect(logged).not.toContain(String(key?.id));
  });

  it('names statements by their verb and table only', () => {
    expect(statementPurpose('insert into "requests" ("id") values ($1)')).toBe(
      'insert into requests',
    );
    expect(statementPurpose('update  "webhooks"\n set "active" = $1')).toBe('update webhooks');
    expect(statementPurpose('delete from "sessions" where x = $1')).toBe('delete from sessions');
    expect(statementPurpose('select "a" from "payments" where "b" = $1')).toBe(
      'select from payments',
    );
  });
});
