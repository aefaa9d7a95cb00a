import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant } from '../../test/fixtures.ts';
import { orchestratorKeys, orchestrators } from '../db/schema.ts';
import { ORCHESTRATOR_EXISTS_MESSAGE } from './account-orchestrator.ts';

/**
 * `POST /v2/orchestrators` on the real app: a signed-in user makes their account an
 * orchestrator and gets a working key once; one per account.
 */

let t: TestApp;
let registered = 0;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function signedIn(): Promise<{ accountId: string; headers: Record<string, string> }> {
  registered += 1;
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { email: `platform${registered}@example.com`, password: 'a long enough password' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json();
  return { accountId: body.accountId, headers: { authorization: `Bearer ${body.sessionToken}` } };
}

function create(headers: Record<string, string>, payload: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/v2/orchestrators',
    headers,
    payload: payload as object,
  });
}

async function rows(): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(orchestrators);
  return row?.n ?? -1;
}

describe('POST /v2/orchestrators', () => {
  it('creates the account’s orchestrator and answers its key once, as 0.31.0’s example', async () => {
    const user = await signedIn();
    const res = await create(user.headers, {
      orchestratorName: 'Acme Platform',
      orchestratorContactEmail: 'support@acme.example',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      orchestrator: {
        id: expect.any(String),
        name: 'Acme Platform',
        supportEmail: 'support@acme.example',
        status: 'active',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      key: {
        id: expect.any(String),
        orchestratorId: body.orchestrator.id,
        keyPrefix: body.rawKey.slice(0, body.key.keyPrefix.length),
        status: 'active',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      rawKey: expect.stringMatching(/^orc_/),
    });
    expect(Date.parse(body.orchestrator.createdAt)).not.toBeNaN();
    expect(body.key.keyPrefix.length).toBeLessThan(body.rawKey.length);
    // Stored for the account, the key only as a digest.
    const [row] = await t.db
      .select()
      .from(orchestrators)
      .where(eq(orchestrators.id, body.orchestrator.id));
    expect(row).toMatchObject({ accountId: user.accountId, supportEmail: 'support@acme.example' });
    const keys = await t.db
      .select()
      .from(orchestratorKeys)
      .where(eq(orchestratorKeys.orchestratorId, body.orchestrator.id));
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(body.rawKey);

    // The key works on the orchestrator routes.
    const links = await t.app.inject({
      method: 'GET',
      url: '/v2/orchestrators/client-ids',
      headers: { 'x-orchestrator-key': body.rawKey },
    });
    expect(links.statusCode, links.body).toBe(200);
  });

  it('takes a name alone (no contact e-mail: supportEmail null)', async () => {
    const user = await signedIn();
    const res = await create(user.headers, { orchestratorName: 'No mail' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().orchestrator.supportEmail).toBeNull();
  });

  it('answers 409 orchestrator_exists for a second one of the account, writing nothing', async () => {
    const user = await signedIn();
    expect((await create(user.headers, { orchestratorName: 'First' })).statusCode).toBe(201);
    const before = await rows();
    const again = await create(user.headers, { orchestratorName: 'Second' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'orchestrator_exists',
      message: ORCHESTRATOR_EXISTS_MESSAGE,
    });
    expect(await rows()).toBe(before);
  });

  it('gives one of two concurrent creations, the other 409', async () => {
    const user = await signedIn();
    const answers = await Promise.all([
      create(user.headers, { orchestratorName: 'A' }),
      create(user.headers, { orchestratorName: 'B' }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
  });

  it.each([
    ['no name', {}],
    ['a blank name', { orchestratorName: '   ' }],
    ['a name of 101 characters', { orchestratorName: 'x'.repeat(101) }],
    [
      'a contact that is not an e-mail',
      { orchestratorName: 'X', orchestratorContactEmail: 'nope' },
    ],
  ])('answers 400 for %s, writing nothing', async (_name, payload) => {
    const user = await signedIn();
    const before = await rows();
    const res = await create(user.headers, payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(await rows()).toBe(before);
  });

  it('takes a session only: no credentials 401, an API key 403', async () => {
    expect((await create({}, { orchestratorName: 'X' })).statusCode).toBe(401);
    const tenant = await createTenant(t.db, 'Keyed');
    const keyed = await create({ 'x-api-key': tenant.apiKey }, { orchestratorName: 'X' });
    expect(keyed.statusCode).toBe(403);
  });
});
