import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  dispatcher,
  type Headers,
  listIds,
  receiver,
  register,
  setupWebhookApps,
  t,
  validationFailed,
} from '../../test/webhook-routes.ts';
import { webhooks } from '../db/schema.ts';

/**
 * Auth API 0.14.0's `clientId` on `POST /v1/webhook` and `POST /v1/webhook/test`: a signed-in
 * user (or an API key) names one of the account's client IDs, and the endpoint (or the test
 * event) is that client ID's; a client ID credential may only name itself. Each case as a
 * dashboard written for 0.14.0 sends it.
 */

setupWebhookApps();

interface User {
  readonly headers: Headers;
  /** The account's client IDs, public values, by label. */
  readonly clientIds: Record<string, string>;
  readonly rowIds: Record<string, string>;
}

let n = 0;
async function signUp(labels: readonly string[]): Promise<User> {
  n += 1;
  const registered = await call(
    'POST',
    '/v1/auth/register',
    {},
    { email: `scope${n}@example.com`, password: 'correct horse battery' },
  );
  expect(registered.statusCode, registered.body).toBe(201);
  const headers = { authorization: `Bearer ${registered.json().sessionToken}` };
  const clientIds: Record<string, string> = {};
  const rowIds: Record<string, string> = {};
  for (const label of labels) {
    const made = await call('POST', '/v1/client-ids', headers, { label, allowedDomains: [] });
    expect(made.statusCode, made.body).toBe(201);
    clientIds[label] = made.json().clientId;
    rowIds[label] = made.json().id;
  }
  return { headers, clientIds, rowIds };
}

const envelope = (statusCode: number, error: string, code: string, message: string) => ({
  statusCode,
  error,
  code,
  message,
});
const CLIENT_ID_NOT_FOUND = envelope(
  404,
  'Not Found',
  'client_id_not_found',
  'Client ID not found',
);

describe('POST /v1/webhook with clientId', () => {
  let user: User;
  let rival: User;
  beforeAll(async () => {
    user = await signUp(['shop', 'app', 'old']);
    rival = await signUp(['rival']);
  });

  it('scopes a signed-in user’s endpoint to the client ID named', async () => {
    const shop = user.clientIds.shop ?? '';
    const res = await call('POST', '/v1/webhook', user.headers, {
      url: 'https://hooks.example.com/shop',
      clientId: shop,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(Object.keys(res.json()).sort()).toEqual(['id', 'secret']);
    const { id } = res.json();
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row?.clientIdId).toBe(user.rowIds.shop);
    // The client ID sees it as its own; another client ID of the account does not.
    expect(await listIds({ 'x-client-id': shop })).toEqual([id]);
    expect(await listIds({ 'x-client-id': user.clientIds.app ?? '' })).toEqual([]);
    // The session sees the account's, each naming its client ID.
    const listed = (await call('GET', '/v1/webhook', user.headers)).json();
    expect(listed).toEqual([expect.objectContaining({ id, clientId: shop, isActive: true })]);
  });

  it('keeps an endpoint registered without clientId account-wide', async () => {
    const { id } = await register(user.headers, 'https://hooks.example.com/everything');
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, id));
    expect(row?.clientIdId).toBeNull();
    const listed = (await call('GET', '/v1/webhook', user.headers)).json();
    expect(listed.find((w: { id: string }) => w.id === id).clientId).toBeNull();
  });

  it('scopes an API key’s endpoint the same way', async () => {
    const key = await call('POST', '/v1/api-keys', user.headers, { label: 'server' });
    expect(key.statusCode, key.body).toBe(201);
    const res = await call(
      'POST',
      '/v1/webhook',
      { 'x-api-key': key.json().apiKey },
      { url: 'https://hooks.example.com/app', clientId: user.clientIds.app },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(await listIds({ 'x-client-id': user.clientIds.app ?? '' })).toEqual([res.json().id]);
  });

  it('answers 404 for another account’s client ID or an unknown one, writing nothing', async () => {
    const before = await t.db.select({ id: webhooks.id }).from(webhooks);
    for (const clientId of [rival.clientIds.rival, 'cli_unknown']) {
      const res = await call('POST', '/v1/webhook', user.headers, {
        url: 'https://hooks.example.com/stolen',
        clientId,
      });
      expect(res.statusCode, clientId).toBe(404);
      expect(res.json(), clientId).toEqual(CLIENT_ID_NOT_FOUND);
    }
    expect(await t.db.select({ id: webhooks.id }).from(webhooks)).toHaveLength(before.length);
  });

  it('answers 400 for a revoked client ID', async () => {
    const revoked = await call('PUT', `/v1/client-ids/${user.rowIds.old}`, user.headers, {
      status: 'revoked',
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const res = await call('POST', '/v1/webhook', user.headers, {
      url: 'https://hooks.example.com/old',
      clientId: user.clientIds.old,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(
      envelope(400, 'Bad Request', 'client_id_revoked', 'Client ID has been revoked'),
    );
  });

  it('takes a client ID credential naming itself, and refuses one naming another', async () => {
    const shop = user.clientIds.shop ?? '';
    const self = await call(
      'POST',
      '/v1/webhook',
      { 'x-client-id': shop },
      { url: 'https://hooks.example.com/self', clientId: shop },
    );
    expect(self.statusCode, self.body).toBe(201);
    for (const other of [user.clientIds.app, rival.clientIds.rival]) {
      const res = await call(
        'POST',
        '/v1/webhook',
        { 'x-client-id': shop },
        { url: 'https://hooks.example.com/other', clientId: other },
      );
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(
        envelope(
          403,
          'Forbidden',
          'client_id_mismatch',
          'clientId must be the client ID this call is made with (x-client-id)',
        ),
      );
    }
  });

  it('answers 400 for a clientId that is not a string', async () => {
    for (const clientId of ['', 42, null]) {
      const res = await call('POST', '/v1/webhook', user.headers, {
        url: 'https://hooks.example.com/x',
        clientId,
      });
      expect(res.statusCode, String(clientId)).toBe(400);
      expect(res.json().errors?.[0]?.field, String(clientId)).toBe('clientId');
    }
  });
});

describe('POST /v1/webhook/test with clientId', () => {
  it('answers 201 and sends only to the endpoints of the client ID named', async () => {
    const user = await signUp(['one', 'two']);
    const [one, two, wide] = await Promise.all([receiver(), receiver(), receiver()]);
    await call('POST', '/v1/webhook', user.headers, { url: one.url, clientId: user.clientIds.one });
    await call('POST', '/v1/webhook', user.headers, { url: two.url, clientId: user.clientIds.two });
    await register(user.headers, wide.url);

    const res = await call('POST', '/v1/webhook/test', user.headers, {
      eventType: 'payment.confirmed',
      clientId: user.clientIds.one,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().sent).toBe(1);
    expect(await dispatcher.runOnce()).toBe(1);
    const [delivery] = await one.waitFor(1);
    // The sample names the client ID it was sent for.
    expect(delivery?.body).toMatchObject({
      event: 'payment.confirmed',
      clientId: user.clientIds.one,
    });
    expect(two.received).toEqual([]);
    expect(wide.received).toEqual([]);

    // Without clientId, the session's test goes to every endpoint of the account.
    const all = await call('POST', '/v1/webhook/test', user.headers, {
      eventType: 'payment.confirmed',
    });
    expect(all.statusCode).toBe(201);
    expect(all.json().sent).toBe(3);
    expect(await dispatcher.runOnce()).toBe(3);
    await Promise.all([one.waitFor(2), two.waitFor(1), wide.waitFor(1)]);
  });

  it('answers 404 naming another account’s client ID, and sends nothing', async () => {
    const user = await signUp(['mine']);
    const rival = await signUp(['theirs']);
    const res = await call('POST', '/v1/webhook/test', user.headers, {
      eventType: 'payment.confirmed',
      clientId: rival.clientIds.theirs,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(CLIENT_ID_NOT_FOUND);
    expect(await dispatcher.runOnce()).toBe(0);
  });

  it('accepts the orchestrator event kinds of the Auth API’s enum', async () => {
    const user = await signUp(['orch']);
    for (const eventType of ['client_id.linked', 'kyt.screening.completed']) {
      const res = await call('POST', '/v1/webhook/test', user.headers, {
        eventType,
        clientId: user.clientIds.orch,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const unknown = await call('POST', '/v1/webhook/test', user.headers, {
      eventType: 'payment.unknown',
    });
    expect(unknown.json()).toEqual(
      validationFailed('eventType', expect.stringContaining('must be one of payment.confirmed')),
    );
  });
});

describe('answers in Auth API 0.14.0’s shapes', () => {
  // Its schemas (auth-api-0.14.0), with every property required as a generated client reads it.
  const ajv = new Ajv({ allErrors: true });
  formats.default(ajv);
  const created = ajv.compile({
    type: 'object',
    required: ['id', 'secret'],
    properties: { id: { type: 'string' }, secret: { type: 'string' } },
  });
  const listed = ajv.compile({
    type: 'array',
    items: {
      type: 'object',
      required: ['id', 'url', 'secret', 'isActive', 'createdAt'],
      properties: {
        id: { type: 'string' },
        url: { type: 'string' },
        secret: { type: 'string' },
        isActive: { type: 'boolean', default: true },
        createdAt: { type: 'string', format: 'date-time' },
      },
    },
  });

  it('creates with 201 {id, secret}, lists every field, tests with 201', async () => {
    const user = await signUp(['shape']);
    const made = await call('POST', '/v1/webhook', user.headers, {
      url: 'https://hooks.example.com/shape',
      clientId: user.clientIds.shape,
    });
    expect(made.statusCode).toBe(201);
    expect(created(made.json()), ajv.errorsText(created.errors)).toBe(true);
    const off = await register(user.headers, 'https://hooks.example.com/off');
    await call('PUT', `/v1/webhook/${off.id}`, user.headers, { active: false });
    for (const headers of [user.headers, { 'x-client-id': user.clientIds.shape ?? '' }]) {
      const list = await call('GET', '/v1/webhook', headers);
      expect(list.statusCode).toBe(200);
      expect(listed(list.json()), ajv.errorsText(listed.errors)).toBe(true);
    }
    const all = (await call('GET', '/v1/webhook', user.headers)).json();
    const byId = new Map(all.map((w: { id: string }) => [w.id, w]));
    expect(byId.get(made.json().id)).toMatchObject({
      isActive: true,
      // The secret is never shown again: masked, only its last 4 characters.
      secret: `whsec_********${made.json().secret.slice(-4)}`,
    });
    expect(byId.get(off.id)).toMatchObject({ isActive: false });
    const test = await call('POST', '/v1/webhook/test', user.headers, {
      eventType: 'payment.confirmed',
    });
    expect(test.statusCode).toBe(201);
  });
});
