import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { evmToTron } from '../chains/tron-address.ts';
import { clientIds, feeConfigs } from '../db/schema.ts';
import { linkClientId, unlinkClientId } from '../orchestrators/links.ts';
import { createOrchestrator } from '../orchestrators/orchestrators.ts';
import { feeConfigsOf } from './fee-configs.ts';
import { resolveFeeConfigs } from './resolve.ts';

const URL = '/v2/orchestrators/fee-configs';
const EVM = '0x2546BcD3c84621e976D8185a91A922aE77ECEc30';
const TRON = evmToTron(EVM);

let t: TestApp;
let tenant: Tenant;
let orchestratorId: string;
let key: string;
let rivalKey: string;

beforeAll(async () => {
  t = await createTestApp();
  tenant = await createTenant(t.db);
  const platform = await createOrchestrator(t.db, 'Platform');
  orchestratorId = platform.orchestratorId;
  key = platform.orchestratorKey;
  rivalKey = (await createOrchestrator(t.db, 'Rival')).orchestratorKey;
  await linkClientId(t.db, orchestratorId, tenant.backendClientId);
});
afterAll(() => t.close());

function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
  orchestratorKey = key,
) {
  // Apart in time, so the list's order (oldest first) is the order they were made in.
  if (method === 'POST') t.clock.advance(1_000);
  return t.app.inject({
    method,
    url,
    headers: { 'x-orchestrator-key': orchestratorKey },
    ...(payload && { payload }),
  });
}

async function rows(): Promise<number> {
  const [row] = await t.db.select({ n: count() }).from(feeConfigs);
  return row?.n ?? 0;
}

async function snapshot(): Promise<unknown> {
  return t.db.select().from(feeConfigs).orderBy(feeConfigs.id);
}

/** Sends a call that must be refused with 400 naming `field`, and checks nothing changed. */
async function refused(
  method: 'POST' | 'PATCH',
  url: string,
  payload: object,
  field: string,
  message?: string,
) {
  const before = await snapshot();
  const res = await call(method, url, payload);
  expect(res.statusCode, res.body).toBe(400);
  const errors = res.json().errors as { field: string; message: string }[];
  expect(errors.map((e) => e.field)).toContain(field);
  if (message !== undefined) {
    expect(errors.find((e) => e.field === field)?.message).toBe(message);
  }
  expect(await snapshot()).toEqual(before);
}

describe('fee configs', () => {
  let defaultId: string;

  it('creates the orchestrator’s default in the reference’s shape', async () => {
    const res = await call('POST', URL, {
      flow: 'incoming',
      feeBearer: 'payer',
      bps: 50,
      usdCap: '0.40',
      evmRecipientAddress: EVM.toLowerCase(),
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    defaultId = body.id;
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      feeType: 'orchestrator_fee',
      bps: 50,
      usdCap: '0.4',
      feeBearer: 'payer',
      evmRecipientAddress: EVM,
      tronRecipientAddress: null,
      status: 'active',
      createdAt: t.clock.now().toISOString(),
      updatedAt: t.clock.now().toISOString(),
      orchestratorId,
      flow: 'incoming',
      clientIdId: null,
      clientId: null,
    });
  });

  it('takes the other bearer and the other flow at the same level, and a Tron recipient', async () => {
    const recipientBorne = await call('POST', URL, {
      flow: 'incoming',
      feeBearer: 'recipient',
      bps: 100,
      tronRecipientAddress: TRON,
    });
    expect(recipientBorne.statusCode, recipientBorne.body).toBe(201);
    expect(recipientBorne.json()).toMatchObject({
      tronRecipientAddress: TRON,
      evmRecipientAddress: null,
      usdCap: null,
    });
    const outgoing = await call('POST', URL, {
      flow: 'outgoing',
      feeBearer: 'payer',
      bps: 0,
      evmRecipientAddress: EVM,
      tronRecipientAddress: TRON,
      status: 'disabled',
    });
    expect(outgoing.statusCode, outgoing.body).toBe(201);
    expect(outgoing.json().status).toBe('disabled');
  });

  it('answers 409 for a second config of a flow and bearer at a level, and writes nothing', async () => {
    const before = await rows();
    const res = await call('POST', URL, {
      flow: 'incoming',
      feeBearer: 'payer',
      bps: 10,
      evmRecipientAddress: EVM,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      code: 'fee_config_exists',
      message: `A payer-borne incoming fee config exists at this level already (${defaultId}, active): change it with PATCH; disabling it does not free the pair`,
    });
    expect(await rows()).toBe(before);
  });

  it('refuses bad input with 400 naming the field, writing nothing', async () => {
    const good = { flow: 'incoming', feeBearer: 'payer', bps: 5, evmRecipientAddress: EVM };
    const linked = { ...good, clientId: tenant.backendClientId };
    await refused('POST', URL, { ...linked, bps: 10_001 }, 'bps');
    await refused('POST', URL, { ...linked, bps: -1 }, 'bps');
    await refused('POST', URL, { ...linked, bps: 1.5 }, 'bps');
    await refused('POST', URL, { ...linked, bps: '5' }, 'bps');
    await refused(
      'POST',
      URL,
      { flow: 'incoming', feeBearer: 'payer', evmRecipientAddress: EVM },
      'bps',
    );
    await refused('POST', URL, { ...linked, feeBearer: 'payee' }, 'feeBearer');
    await refused('POST', URL, { ...linked, flow: 'get_paid' }, 'flow');
    await refused('POST', URL, { ...linked, status: 'paused' }, 'status');
    await refused(
      'POST',
      URL,
      { ...linked, usdCap: '0' },
      'usdCap',
      'must be greater than 0 (USD)',
    );
    await refused('POST', URL, { ...linked, usdCap: '1e3' }, 'usdCap');
    await refused('POST', URL, { ...linked, usdCap: 5 }, 'usdCap');
    await refused(
      'POST',
      URL,
      { ...linked, usdCap: '0.000000001' },
      'usdCap',
      'must have at most 8 decimal places (USD)',
    );
    const { evmRecipientAddress: _none, ...noRecipient } = linked;
    await refused(
      'POST',
      URL,
      noRecipient,
      'evmRecipientAddress',
      'or tronRecipientAddress is required: a fee needs a recipient (must be an EVM address (0x followed by 40 hex digits))',
    );
    await refused(
      'POST',
      URL,
      { ...linked, evmRecipientAddress: EVM.replace('Bc', 'bC') },
      'evmRecipientAddress',
      'has an invalid EIP-55 checksum: write the address in all lower case or with its correct checksum',
    );
    await refused('POST', URL, { ...linked, evmRecipientAddress: TRON }, 'evmRecipientAddress');
    await refused('POST', URL, { ...linked, tronRecipientAddress: EVM }, 'tronRecipientAddress');
    await refused(
      'POST',
      URL,
      { ...linked, evmRecipientAddress: `0x${'0'.repeat(40)}` },
      'evmRecipientAddress',
      'must not be the zero address',
    );
    // The same body with its client ID is accepted: each refusal above was its one field.
    const ok = await call('POST', URL, linked);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json()).toMatchObject({ clientId: tenant.backendClientId, bps: 5 });
    expect(ok.json().clientIdId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes a client-specific config only for a client ID linked to the caller', async () => {
    const body = { flow: 'outgoing', feeBearer: 'recipient', bps: 5, evmRecipientAddress: EVM };
    const before = await rows();
    const unknown = await call('POST', URL, { ...body, clientId: 'cli_unknown' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('client_id_not_found');
    // Linked, but to the platform: the rival may not price it.
    const others = await call('POST', URL, { ...body, clientId: tenant.backendClientId }, rivalKey);
    expect(others.statusCode).toBe(403);
    expect(others.json().code).toBe('client_id_not_linked');
    // Of no orchestrator at all.
    const unlinked = await call('POST', URL, { ...body, clientId: tenant.browserClientId });
    expect(unlinked.statusCode).toBe(403);
    expect(await rows()).toBe(before);
    // The client level is apart from the default: its payer-borne incoming pair was free.
    const list = await call('GET', `${URL}?clientId=${tenant.backendClientId}`);
    expect(list.json()).toHaveLength(1);
    expect(list.json()[0]).toMatchObject({ flow: 'incoming', feeBearer: 'payer', bps: 5 });
  });

  it('lists the defaults, or one client ID’s, each only to its orchestrator', async () => {
    const defaults = await call('GET', URL);
    expect(defaults.statusCode).toBe(200);
    expect(defaults.json().map((c: { bps: number }) => c.bps)).toEqual([50, 100, 0]);
    expect(defaults.json().every((c: { clientId: null }) => c.clientId === null)).toBe(true);
    const rival = await call('GET', URL, undefined, rivalKey);
    expect(rival.json()).toEqual([]);
    const rivalClient = await call(
      'GET',
      `${URL}?clientId=${tenant.backendClientId}`,
      undefined,
      rivalKey,
    );
    expect(rivalClient.statusCode).toBe(403);
    expect(rivalClient.body).not.toContain(defaultId);
  });

  it('changes bps, cap, recipients and status, and nothing of the identity', async () => {
    t.clock.advance(60_000);
    const res = await call('PATCH', `${URL}/${defaultId}`, {
      bps: 75,
      usdCap: null,
      tronRecipientAddress: TRON,
      flow: 'incoming',
      clientId: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: defaultId,
      bps: 75,
      usdCap: null,
      evmRecipientAddress: EVM,
      tronRecipientAddress: TRON,
      updatedAt: t.clock.now().toISOString(),
    });
    expect(res.json().createdAt).not.toBe(res.json().updatedAt);
    const url = `${URL}/${defaultId}`;
    await refused(
      'PATCH',
      url,
      { flow: 'outgoing' },
      'flow',
      'is part of the fee config’s identity (fee type, flow, fee bearer, level) and cannot be changed',
    );
    await refused('PATCH', url, { bps: 1, feeBearer: 'recipient' }, 'feeBearer');
    await refused('PATCH', url, { feeType: 'protocol_fee' }, 'feeType');
    await refused('PATCH', url, { clientId: tenant.backendClientId }, 'clientId');
    await refused('PATCH', url, { bps: 10_001 }, 'bps');
    await refused('PATCH', url, { usdCap: '-1' }, 'usdCap');
    await refused('PATCH', url, { evmRecipientAddress: 'nope' }, 'evmRecipientAddress');
    await refused(
      'PATCH',
      url,
      { evmRecipientAddress: null, tronRecipientAddress: null },
      'evmRecipientAddress',
    );
    // Nothing to change (or only the identity as it is): nothing written, not even updatedAt.
    const before = await snapshot();
    const unchanged = await call('PATCH', url, { flow: 'incoming', feeBearer: 'payer' });
    expect(unchanged.statusCode).toBe(200);
    expect(unchanged.json()).toEqual(res.json());
    expect(await snapshot()).toEqual(before);
    // One recipient may go while the other stays.
    const cleared = await call('PATCH', url, { evmRecipientAddress: null, usdCap: '2.5' });
    expect(cleared.json()).toMatchObject({ evmRecipientAddress: null, usdCap: '2.5' });
  });

  it('answers 404 for a config that is not the caller’s, changing nothing', async () => {
    const before = await snapshot();
    for (const [method, id] of [
      ['PATCH', defaultId],
      ['DELETE', defaultId],
      ['PATCH', 'not-a-uuid'],
      ['DELETE', '00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const res = await call(
        method,
        `${URL}/${id}`,
        method === 'PATCH' ? { bps: 1 } : undefined,
        id === defaultId ? rivalKey : key,
      );
      expect(res.statusCode, `${method} ${id}`).toBe(404);
      expect(res.json().code).toBe('fee_config_not_found');
    }
    const wrongClient = await call(
      'DELETE',
      `${URL}/${defaultId}?clientId=${tenant.backendClientId}`,
    );
    expect(wrongClient.statusCode).toBe(404);
    expect(await snapshot()).toEqual(before);
  });

  it('disables a config, again with the same answer, and keeps its pair taken', async () => {
    const res = await call('DELETE', `${URL}/${defaultId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: defaultId, status: 'disabled' });
    const again = await call('DELETE', `${URL}/${defaultId}`);
    expect(again.json()).toEqual(res.json());
    const retake = await call('POST', URL, {
      flow: 'incoming',
      feeBearer: 'payer',
      bps: 1,
      evmRecipientAddress: EVM,
    });
    expect(retake.statusCode).toBe(409);
    expect(retake.json().message).toContain(`(${defaultId}, disabled)`);
    const enabled = await call('PATCH', `${URL}/${defaultId}`, { status: 'active' });
    expect(enabled.json().status).toBe('active');
    // A client ID's config, disabled with its client ID named.
    const [client] = (await call('GET', `${URL}?clientId=${tenant.backendClientId}`)).json();
    const named = await call('DELETE', `${URL}/${client.id}?clientId=${tenant.backendClientId}`);
    expect(named.json()).toMatchObject({ status: 'disabled', clientId: tenant.backendClientId });
  });

  it('resolves the stored configs for a payment of the client ID', async () => {
    const [client] = await t.db
      .select()
      .from(clientIds)
      .where(eq(clientIds.clientId, tenant.backendClientId));
    const stored = await feeConfigsOf(t.db, orchestratorId);
    // The client ID's own incoming payer-borne config is disabled: the default comes back.
    const resolved = resolveFeeConfigs(stored, {
      orchestratorId,
      clientIdId: client?.id ?? null,
      flow: 'incoming',
    });
    expect(resolved.payer).toMatchObject({ id: defaultId, clientIdId: null, status: 'active' });
    expect(resolved.recipient).toMatchObject({ bps: 100, tronRecipientAddress: TRON });
    const outgoing = resolveFeeConfigs(stored, {
      orchestratorId,
      clientIdId: null,
      flow: 'outgoing',
    });
    // Created disabled: nothing applies.
    expect(outgoing).toEqual({ payer: null, recipient: null });
  });

  it('no longer serves a client ID’s configs once it is unlinked', async () => {
    await unlinkClientId(t.db, t.clock, orchestratorId, tenant.backendClientId);
    const res = await call('GET', `${URL}?clientId=${tenant.backendClientId}`);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('client_id_not_linked');
  });
});
