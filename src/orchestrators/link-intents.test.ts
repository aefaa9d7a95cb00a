import { eq } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { type Receiver, startReceiver } from '../../test/webhook-receiver.ts';
import { clientIdLinkIntents, clientIds, orchestratorClientLinks } from '../db/schema.ts';
import { createDispatcher } from '../webhooks/dispatcher.ts';
import { LINK_INTENT_TTL_MS } from './link-intents.ts';
import { createOrchestrator } from './orchestrators.ts';

/**
 * Link intents end to end over HTTP: the orchestrator's invitation, the merchant's session
 * validating and completing it, and `client_id.linked` reaching the orchestrator's receiver
 * through the real dispatcher, signed.
 */

const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const DAI_BASE = '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb';
const POLICY = '0b7f1d52-4a3e-4f6e-9c1e-6b2d8f0a1c3e';

let t: TestApp;
let platform: { orchestratorId: string; orchestratorKey: string };
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestApp({ env: { ALLOW_LOCAL_WEBHOOKS: 'true', WEBHOOK_TIMEOUT_MS: '1000' } });
  platform = await createOrchestrator(t.db, 'Platform');
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

interface Session {
  readonly headers: Record<string, string>;
  readonly accountId: string;
}

let keys = 0x1000;
async function walletSession(): Promise<Session & { address: string }> {
  keys += 1;
  const account = privateKeyToAccount(`0x${keys.toString(16).padStart(64, '0')}`);
  const challenge = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/wallet/challenge',
    payload: { address: account.address },
  });
  const { challengeId, nonce, message } = challenge.json();
  const verified = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/wallet/verify',
    payload: { challengeId, nonce, message, signature: await account.signMessage({ message }) },
  });
  expect(verified.statusCode, verified.body).toBe(200);
  const body = verified.json();
  return {
    headers: { authorization: `Bearer ${body.sessionToken}` },
    accountId: body.accountId,
    address: account.address,
  };
}

async function destination(session: Session, tokenAddress = USDC_BASE): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/payee-destination',
    headers: session.headers,
    payload: { tokenAddress, chainId: 8453 },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().destinationId;
}

function createIntent(body: object, key = platform.orchestratorKey) {
  return t.app.inject({
    method: 'POST',
    url: '/v2/orchestrators/client-id-link-intents',
    headers: { 'x-orchestrator-key': key },
    payload: body,
  });
}

async function intentToken(body: object = { clientIdName: 'Shop on Platform' }) {
  const res = await createIntent(body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ url: string; intent: { id: string; accessToken: string } }>();
}

function onIntent(method: 'GET' | 'POST', token: string, session: Session | null, body?: object) {
  return t.app.inject({
    method,
    url: `/v1/client-id-links/intents/${token}`,
    headers: session?.headers ?? {},
    ...(body && { payload: body }),
  });
}

function putKyt(clientIdId: string, session: Session, body: object) {
  return t.app.inject({
    method: 'PUT',
    url: `/v1/client-id-links/${clientIdId}/kyt`,
    headers: session.headers,
    payload: body,
  });
}

const allIntents = () => t.db.select().from(clientIdLinkIntents);
const accountClientIds = (accountId: string) =>
  t.db.select().from(clientIds).where(eq(clientIds.accountId, accountId));

describe('POST /v2/orchestrators/client-id-link-intents', () => {
  it('creates a single-use intent valid two days, its token kept only as a digest', async () => {
    const res = await createIntent({
      clientIdName: ' Shop ',
      domains: ['https://shop.example/', 'http://localhost:3000', 'https://shop.example'],
      externalId: 'merchant-42',
      kyt: {
        providers: [{ provider: 'merklescience', policyId: POLICY }, { provider: 'hypernative' }],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    const now = t.clock.now();
    expect(body).toEqual({
      url: `${t.config.payUrl}/link/${body.intent.accessToken}`,
      intent: {
        id: expect.any(String),
        accessToken: expect.stringMatching(/^lki_[A-Za-z0-9_-]{43}$/),
        orchestratorId: platform.orchestratorId,
        clientIdName: 'Shop',
        allowedDomains: ['https://shop.example', 'http://localhost:3000'],
        externalId: 'merchant-42',
        kyt: {
          providers: [
            { provider: 'merklescience', policyId: POLICY, priority: 1 },
            { provider: 'hypernative', policyId: null, priority: 2 },
          ],
        },
        used: false,
        expiresAt: new Date(now.getTime() + LINK_INTENT_TTL_MS).toISOString(),
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      },
    });
    const [row] = await t.db
      .select()
      .from(clientIdLinkIntents)
      .where(eq(clientIdLinkIntents.id, body.intent.id));
    expect(JSON.stringify(row)).not.toContain(body.intent.accessToken);
  });

  it.each([
    [{ clientIdName: '   ' }, ['clientIdName']],
    [{ clientIdName: 'A', domains: ['https://shop.example/path'] }, ['domains[0]']],
    [{ clientIdName: 'A', domains: ['http://shop.example'] }, ['domains[0]']],
    [
      {
        clientIdName: 'A',
        kyt: { providers: [{ provider: 'hypernative' }, { provider: 'hypernative' }] },
      },
      ['kyt.providers[1].provider'],
    ],
    [
      {
        clientIdName: 'A',
        kyt: { providers: [{ provider: 'hypernative', policyId: 'policy-1' }] },
      },
      ['kyt.providers[0].policyId'],
    ],
    [{ clientIdName: 'A', kyt: { providers: [] } }, ['kyt.providers']],
    [{ clientIdName: 'A', kyt: { providers: [{ provider: 'chainalysis' }] } }, null],
    [{ domains: ['https://shop.example'] }, null],
  ])('refuses %j with a 400 naming the field, writing nothing', async (body, fields) => {
    const before = await allIntents();
    const res = await createIntent(body);
    expect(res.statusCode, res.body).toBe(400);
    if (fields) {
      const named = res.json<{ errors: { field: string }[] }>().errors.map((e) => e.field);
      for (const field of fields) expect(named.join(' ')).toContain(field);
    }
    expect(await allIntents()).toEqual(before);
  });

  it('needs an orchestrator key', async () => {
    const res = await createIntent({ clientIdName: 'A' }, 'orc_not-a-key');
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /v1/client-id-links/intents/{token}', () => {
  it("answers an open intent's public facts to a session", async () => {
    const created = await intentToken({ clientIdName: 'Facts', domains: ['https://a.example'] });
    const merchant = await walletSession();
    const res = await onIntent('GET', created.intent.accessToken, merchant);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      intent: {
        id: created.intent.id,
        clientIdName: 'Facts',
        allowedDomains: ['https://a.example'],
        externalId: null,
        kyt: null,
        expiresAt: expect.any(String),
      },
      orchestrator: { id: platform.orchestratorId, name: 'Platform' },
      branding: null,
    });
    expect((await onIntent('GET', created.intent.accessToken, null)).statusCode).toBe(401);
  });

  it("carries the orchestrator's own branding, for the page to wear", async () => {
    const branded = await createOrchestrator(t.db, 'Branded platform');
    const headers = { 'x-orchestrator-key': branded.orchestratorKey };
    const made = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/branding',
      headers,
      payload: { primaryActionColor: '#1d4ed8', logoPath: '/branding/acme/logo.png' },
    });
    expect(made.statusCode, made.body).toBe(201);
    const created = await createIntent({ clientIdName: 'Branded' }, branded.orchestratorKey);
    expect(created.statusCode, created.body).toBe(201);
    const merchant = await walletSession();
    const res = await onIntent('GET', created.json().intent.accessToken, merchant);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().branding).toEqual({
      logoPath: '/branding/acme/logo.png',
      pageBackgroundColor: '#f3f4f6',
      cardBackgroundColor: '#ffffff',
      primaryActionColor: '#1d4ed8',
      primaryTextColor: '#475569',
      secondaryTextColor: '#94a3b8',
    });
  });

  it('answers 404 link_intent_not_found for an unknown or malformed token', async () => {
    const merchant = await walletSession();
    for (const token of [`lki_${'A'.repeat(43)}`, 'nonsense']) {
      const res = await onIntent('GET', token, merchant);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({
        code: 'link_intent_not_found',
        message: 'Link intent not found',
      });
    }
  });

  it('answers 410 link_intent_expired once two days have passed, and completes nothing', async () => {
    // Made two days ago: it expires now (the session is new, so it still holds).
    t.clock.advance(-LINK_INTENT_TTL_MS);
    let created: Awaited<ReturnType<typeof intentToken>>;
    try {
      created = await intentToken();
    } finally {
      t.clock.advance(LINK_INTENT_TTL_MS);
    }
    const merchant = await walletSession();
    await destination(merchant);
    const read = await onIntent('GET', created.intent.accessToken, merchant);
    expect(read.statusCode).toBe(410);
    expect(read.json()).toMatchObject({
      code: 'link_intent_expired',
      message: 'Link intent has expired',
    });
    const complete = await onIntent('POST', created.intent.accessToken, merchant, {});
    expect(complete.statusCode).toBe(410);
    expect(complete.json().code).toBe('link_intent_expired');
    expect(await accountClientIds(merchant.accountId)).toEqual([]);
  });
});

describe('POST /v1/client-id-links/intents/{token}', () => {
  it('creates a linked client ID, uses the intent, and the platform hears client_id.linked, signed', async () => {
    const target = await startReceiver();
    receivers.push(target);
    const hook = await t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/webhooks',
      headers: { 'x-orchestrator-key': platform.orchestratorKey },
      payload: { url: target.url },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    target.verifyWith(hook.json().secret);

    const created = await intentToken({
      clientIdName: 'Linked shop',
      domains: ['https://linked.example'],
      externalId: 'ext-7',
      kyt: { providers: [{ provider: 'hypernative', policyId: POLICY }] },
    });
    const merchant = await walletSession();
    const destinationId = await destination(merchant);
    const res = await onIntent('POST', created.intent.accessToken, merchant, { destinationId });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    const kyt = { providers: [{ provider: 'hypernative', policyId: POLICY, priority: 1 }] };
    expect(body).toEqual({
      clientId: {
        id: expect.any(String),
        clientId: expect.stringMatching(/^cli_/),
        label: 'Linked shop',
        allowedDomains: ['https://linked.example'],
        payeeDestinationId: destinationId,
        status: 'active',
        createdAt: t.clock.now().toISOString(),
      },
      link: {
        id: expect.any(String),
        clientIdId: body.clientId.id,
        orchestratorId: platform.orchestratorId,
        status: 'active',
        kyt,
        createdAt: t.clock.now().toISOString(),
      },
    });
    const [own] = await accountClientIds(merchant.accountId);
    expect(own?.clientId).toBe(body.clientId.clientId);
    const [link] = await t.db
      .select()
      .from(orchestratorClientLinks)
      .where(eq(orchestratorClientLinks.clientIdId, body.clientId.id));
    expect(link).toMatchObject({ orchestratorId: platform.orchestratorId, status: 'active' });
    // The orchestrator sees its new client ID among its links.
    const links = await t.app.inject({
      method: 'GET',
      url: '/v2/orchestrators/client-ids',
      headers: { 'x-orchestrator-key': platform.orchestratorKey },
    });
    expect(links.json().links).toContainEqual({
      clientId: body.clientId.clientId,
      status: 'active',
    });

    const dispatcher = createDispatcher({
      db: t.database.queue,
      clock: t.clock,
      logger: t.app.log as never,
      secretBox: t.secretBox,
      config: t.config.webhooks,
    });
    expect(await dispatcher.runOnce()).toBeGreaterThanOrEqual(1);
    const [delivery] = await target.waitFor(1);
    expect(target.refused).toEqual([]);
    expect(delivery?.body).toEqual({
      event: 'client_id.linked',
      clientId: body.clientId.clientId,
      orchestratorId: platform.orchestratorId,
      linkId: body.link.id,
      intentId: created.intent.id,
      externalId: 'ext-7',
      destinationId,
      destinationWalletAddress: merchant.address,
      chain: 'base',
      currency: 'USDC',
      timestamp: t.clock.now().toISOString(),
    });

    // Single use: completing or reading it again says it was used.
    const again = await onIntent('POST', created.intent.accessToken, merchant, { destinationId });
    expect(again.statusCode).toBe(410);
    expect(again.json()).toMatchObject({
      code: 'link_intent_used',
      message: 'Link intent has been used',
    });
    expect((await onIntent('GET', created.intent.accessToken, merchant)).json().code).toBe(
      'link_intent_used',
    );
    expect(await accountClientIds(merchant.accountId)).toHaveLength(1);
  });

  it('completes once when two completions race', async () => {
    const created = await intentToken();
    const merchant = await walletSession();
    await destination(merchant);
    const answers = await Promise.all([
      onIntent('POST', created.intent.accessToken, merchant, {}),
      onIntent('POST', created.intent.accessToken, merchant, {}),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 410]);
    expect(answers.find((a) => a.statusCode === 410)?.json().code).toBe('link_intent_used');
    expect(await accountClientIds(merchant.accountId)).toHaveLength(1);
  });

  it('needs a destination of the account, and writes nothing without one', async () => {
    const created = await intentToken();
    const merchant = await walletSession();
    const none = await onIntent('POST', created.intent.accessToken, merchant);
    expect(none.statusCode).toBe(400);
    expect(none.json().errors[0].field).toBe('destinationId');

    const other = await walletSession();
    const othersDestination = await destination(other);
    const foreign = await onIntent('POST', created.intent.accessToken, merchant, {
      destinationId: othersDestination,
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().errors[0]).toEqual({
      field: 'destinationId',
      message: 'is not a payee destination of this account',
    });
    expect(await accountClientIds(merchant.accountId)).toEqual([]);
    const [row] = await t.db
      .select()
      .from(clientIdLinkIntents)
      .where(eq(clientIdLinkIntents.id, created.intent.id));
    expect(row?.usedAt).toBeNull();
  });

  it("binds the account's only active destination when none is named", async () => {
    const created = await intentToken();
    const merchant = await walletSession();
    await destination(merchant, USDC_BASE);
    const dai = await destination(merchant, DAI_BASE);
    // A wallet keeps one active destination: the DAI one replaced the USDC one.
    const res = await onIntent('POST', created.intent.accessToken, merchant, {});
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().clientId.payeeDestinationId).toBe(dai);
  });
});

describe('PUT /v1/client-id-links/{clientIdId}/kyt', () => {
  it("replaces the plan of the account's linked client ID; another's is not found", async () => {
    const created = await intentToken();
    const merchant = await walletSession();
    await destination(merchant);
    const completed = (await onIntent('POST', created.intent.accessToken, merchant, {})).json();
    const id = completed.clientId.id;

    const res = await putKyt(id, merchant, {
      providers: [{ provider: 'merklescience' }, { provider: 'hypernative', policyId: POLICY }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const kyt = {
      providers: [
        { provider: 'merklescience', policyId: null, priority: 1 },
        { provider: 'hypernative', policyId: POLICY, priority: 2 },
      ],
    };
    expect(res.json()).toEqual({ clientIdId: id, orchestratorId: platform.orchestratorId, kyt });
    const [link] = await t.db
      .select()
      .from(orchestratorClientLinks)
      .where(eq(orchestratorClientLinks.clientIdId, id));
    expect(link?.kytPlan).toEqual(kyt);

    const stranger = await walletSession();
    const foreign = await putKyt(id, stranger, { providers: [{ provider: 'hypernative' }] });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().code).toBe('client_id_not_found');

    const twice = await putKyt(id, merchant, {
      providers: [{ provider: 'hypernative' }, { provider: 'hypernative' }],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors[0].field).toBe('providers[1].provider');
    const [unchanged] = await t.db
      .select()
      .from(orchestratorClientLinks)
      .where(eq(orchestratorClientLinks.clientIdId, id));
    expect(unchanged?.kytPlan).toEqual(kyt);
  });

  it('answers orchestrator_not_linked for a client ID no orchestrator holds', async () => {
    const merchant = await walletSession();
    const own = await t.app.inject({
      method: 'POST',
      url: '/v1/client-ids',
      headers: merchant.headers,
      payload: { label: 'Alone', allowedDomains: [] },
    });
    expect(own.statusCode, own.body).toBe(201);
    const res = await putKyt(own.json().id, merchant, { providers: [{ provider: 'hypernative' }] });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('orchestrator_not_linked');
  });
});
