import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  a,
  CURRENCY,
  created,
  envelope,
  invalid,
  NOT_FOUND,
  refused,
  SHOP,
  START,
  SURFACES,
  send,
  setupClientIdApp,
  snapshot,
  t,
  WALLET,
} from '../../test/client-ids.ts';
import { clientIds } from '../db/schema.ts';

/**
 * Client IDs after they are made, on both surfaces: who may call, reading, changing, rotating
 * and revoking, each only within the caller's account.
 */

setupClientIdApp();

describe('credentials', () => {
  it('takes only an API key on /v2 and only a session on /v1', async () => {
    const backend = await created('/v1/client-ids', a.session, { label: 'Backend' });
    const notAccepted = (header: string, use: string) =>
      envelope(
        403,
        'credential_not_accepted',
        `This endpoint does not accept ${header}; use ${use}`,
      );
    const session = 'a session (session_token cookie or Authorization: Bearer)';
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', ''],
      ['GET', `/${backend.id}`],
      ['PUT', `/${backend.id}`],
      ['DELETE', `/${backend.id}`],
    ] as const) {
      const payload =
        method === 'POST' || method === 'PUT' ? { label: 'X', allowedDomains: [SHOP] } : undefined;
      const request = (url: string, headers: Record<string, string>): InjectOptions => ({
        method,
        url,
        headers,
        ...(payload && { payload }),
      });
      await refused(
        request(`/v2/client-ids${suffix}`, a.session),
        403,
        notAccepted(session, 'x-api-key'),
      );
      await refused(
        request(`/v2/client-ids${suffix}`, { 'x-client-id': backend.clientId }),
        403,
        notAccepted('x-client-id', 'x-api-key'),
      );
      await refused(
        request(`/v1/client-ids${suffix}`, a.apiKey),
        403,
        notAccepted('x-api-key', session),
      );
      await refused(
        request(`/v1/client-ids${suffix}`, {}),
        401,
        envelope(401, 'missing_credentials', 'Unauthorized', [
          { field: 'credentials', message: `Missing credentials: send ${session}` },
        ]),
      );
    }
  });

  it('accepts the session cookie as well as the bearer header', async () => {
    const token = (a.session.authorization ?? '').replace('Bearer ', '');
    const res = await send('GET', '/v1/client-ids', { cookie: `session_token=${token}` });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe.each(SURFACES)('$prefix reads', ({ prefix, auth, authB }) => {
  it('lists only the caller’s client IDs, revoked ones included, in the list shape', async () => {
    const mine = await created(prefix, auth(), { label: 'Listed', allowedDomains: [SHOP] });
    const theirs = await created(prefix, authB(), { label: 'Theirs', allowedDomains: [SHOP] });
    const revoked = await created(prefix, auth(), { label: 'Gone', allowedDomains: [SHOP] });
    expect((await send('DELETE', `${prefix}/${revoked.id}`, auth())).statusCode).toBe(200);

    const res = await send('GET', prefix, auth());
    expect(res.statusCode).toBe(200);
    const list = res.json() as { id: string; status: string }[];
    const rows = await t.db.select().from(clientIds).where(eq(clientIds.accountId, a.accountId));
    expect(list.map((c) => c.id).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(list.map((c) => c.id)).not.toContain(theirs.id);
    expect(res.body).not.toContain(theirs.clientId);
    expect(list.find((c) => c.id === revoked.id)?.status).toBe('revoked');
    const item = list.find((c) => c.id === mine.id);
    expect(item).toEqual({
      id: mine.id,
      clientId: mine.clientId,
      label: 'Listed',
      allowedDomains: [SHOP],
      status: 'active',
      createdAt: t.clock.now().toISOString(),
      lastUsedAt: null,
      feePercentage: null,
      feeAddress: null,
      ...(prefix === '/v1/client-ids' && { payeeDestinationId: null }),
      orchestrator: null,
    });

    const other = await send('GET', prefix, authB());
    expect(other.body).not.toContain(mine.clientId);
    expect((other.json() as { id: string }[]).map((c) => c.id)).toContain(theirs.id);
  });

  it('shows one client ID with updatedAt and lastUsedAt', async () => {
    const made = await created(prefix, auth(), {
      label: 'Detail',
      allowedDomains: [SHOP],
      feePercentage: '1',
      feeAddress: WALLET,
    });
    const res = await send('GET', `${prefix}/${made.id}`, auth());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...made,
      updatedAt: made.createdAt,
      lastUsedAt: null,
      orchestrator: null,
    });
  });

  it('records lastUsedAt once the client ID is used', async () => {
    const made = await created(prefix, auth(), { label: 'Used', allowedDomains: [SHOP] });
    const use = await send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP });
    expect(use.statusCode).toBe(200);
    await t.usage.flush();
    const res = await send('GET', `${prefix}/${made.id}`, auth());
    expect(res.json().lastUsedAt).toBe(t.clock.now().toISOString());
  });

  it('answers 404 Client ID not found for another account’s id, an unknown uuid, a cli_ value or a malformed id', async () => {
    const theirs = await created(prefix, authB(), { label: 'Theirs', allowedDomains: [SHOP] });
    for (const id of [
      theirs.id,
      '00000000-0000-4000-8000-000000000000',
      theirs.clientId,
      'not-a-uuid',
      `${theirs.id}x`,
    ]) {
      await refused(
        { method: 'GET', url: `${prefix}/${encodeURIComponent(id)}`, headers: auth() },
        404,
        NOT_FOUND,
      );
    }
  });
});

describe.each(SURFACES)('$prefix changes', ({ prefix, auth, authB }) => {
  it('changes only the fields sent, moves updatedAt, and unsets with null', async () => {
    t.clock.set(START);
    const made = await created(prefix, auth(), {
      label: 'Before',
      allowedDomains: [SHOP],
      feePercentage: '1.25',
      feeAddress: WALLET,
      operatorWalletAddress: WALLET,
      defaultPreApprovalExpiry: 60,
      rateLimitPerMinute: 120,
    });
    t.clock.advance(60_000);
    const label = await send('PUT', `${prefix}/${made.id}`, auth(), { label: 'After' });
    expect(label.statusCode, label.body).toBe(200);
    expect(label.json()).toEqual({
      ...made,
      label: 'After',
      updatedAt: t.clock.now().toISOString(),
      lastUsedAt: null,
    });

    const unset = await send('PUT', `${prefix}/${made.id}`, auth(), {
      feePercentage: null,
      feeAddress: null,
      operatorWalletAddress: null,
      defaultPreApprovalExpiry: null,
      rateLimitPerMinute: null,
      defaultAuthorizationExpiry: 900,
      allowedDomains: ['https://other.example', SHOP],
    });
    expect(unset.statusCode, unset.body).toBe(200);
    expect(unset.json()).toMatchObject({
      label: 'After',
      allowedDomains: ['https://other.example', SHOP],
      feePercentage: null,
      feeAddress: null,
      operatorWalletAddress: null,
      defaultPreApprovalExpiry: null,
      defaultAuthorizationExpiry: 900,
      rateLimitPerMinute: null,
    });
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(row).toMatchObject({ feePercentage: null, rateLimitPerMinute: null });

    const tier = await send('PUT', `${prefix}/${made.id}`, auth(), { rateLimitPerMinute: 1200 });
    expect(tier.json().rateLimitPerMinute).toBe(1200);
    const [tiered] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(tiered?.rateLimitPerMinute).toBe(1200);
  });

  it('keeps feeAddress required while feePercentage is set', async () => {
    const made = await created(prefix, auth(), {
      label: 'Fee',
      allowedDomains: [SHOP],
      feePercentage: '1',
      feeAddress: WALLET,
    });
    const put = (payload: object): InjectOptions => ({
      method: 'PUT',
      url: `${prefix}/${made.id}`,
      headers: auth(),
      payload,
    });
    const required = invalid({
      field: 'feeAddress',
      message: 'is required when feePercentage is set',
    });
    await refused(put({ feeAddress: null }), 400, required);
    await refused(put({ feePercentage: '2', feeAddress: null }), 400, required);
    const plain = await created(prefix, auth(), { label: 'No fee', allowedDomains: [SHOP] });
    await refused({ ...put({ feePercentage: '2' }), url: `${prefix}/${plain.id}` }, 400, required);
    // Changing the percentage alone keeps the stored address.
    const res = await send('PUT', `${prefix}/${made.id}`, auth(), { feePercentage: '3' });
    expect(res.json()).toMatchObject({ feePercentage: '3', feeAddress: WALLET });
  });

  it.each([
    [{ label: null }, { field: 'label', message: 'must be string' }],
    [{ label: ' ' }, { field: 'label', message: 'must be 1 to 100 characters' }],
    [{ status: null }, { field: 'status', message: 'must be equal to one of the allowed values' }],
    [
      { status: 'paused' },
      { field: 'status', message: 'must be equal to one of the allowed values' },
    ],
    [
      { feePercentage: '12.345', feeAddress: WALLET },
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ],
    [
      { operatorWalletAddress: '0xabc' },
      {
        field: 'operatorWalletAddress',
        message: 'must be an EVM address (0x followed by 40 hex digits)',
      },
    ],
    [
      { defaultPreApprovalExpiry: 0 },
      { field: 'defaultPreApprovalExpiry', message: 'must be >= 1' },
    ],
    [
      { rateLimitPerMinute: 0 },
      {
        field: 'rateLimitPerMinute',
        message: 'must be one of 120, 300, 600, 1200, or null for the default tier',
      },
    ],
    [
      { allowedDomains: ['https://a.example/x'] },
      { field: 'allowedDomains[0]', message: 'must not contain a path, query or fragment' },
    ],
  ])('answers 400 for %j and writes nothing', async (payload, error) => {
    const made = await created(prefix, auth(), { label: 'Kept', allowedDomains: [SHOP] });
    await refused(
      { method: 'PUT', url: `${prefix}/${made.id}`, headers: auth(), payload },
      400,
      invalid(error),
    );
  });

  it('switches a client ID off and on: inactive answers 403 on the API, active works again', async () => {
    const made = await created(prefix, auth(), { label: 'Toggle', allowedDomains: [SHOP] });
    const use = () => send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP });
    expect((await use()).statusCode).toBe(200);

    const off = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'inactive' });
    expect(off.json().status).toBe('inactive');
    const refusedUse = await use();
    expect(refusedUse.statusCode).toBe(403);
    expect(refusedUse.json()).toEqual(envelope(403, 'inactive_client_id', 'Client ID is inactive'));

    const on = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'active' });
    expect(on.json().status).toBe('active');
    expect((await use()).statusCode).toBe(200);
  });

  it('revokes for good with DELETE: 403 on the API, and no PUT can reactivate it', async () => {
    const made = await created(prefix, auth(), { label: 'Doomed', allowedDomains: [SHOP] });
    t.clock.advance(1_000);
    const res = await send('DELETE', `${prefix}/${made.id}`, auth());
    expect(res.statusCode, res.body).toBe(200);
    const revoked = {
      ...made,
      status: 'revoked',
      updatedAt: t.clock.now().toISOString(),
      lastUsedAt: null,
    };
    expect(res.json()).toEqual(revoked);
    const use = await send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP });
    expect(use.statusCode).toBe(403);
    expect(use.json()).toEqual(envelope(403, 'revoked_client_id', 'Client ID has been revoked'));

    for (const status of ['active', 'inactive']) {
      await refused(
        {
          method: 'PUT',
          url: `${prefix}/${made.id}`,
          headers: auth(),
          payload: { status, label: 'Back' },
        },
        400,
        envelope(400, 'client_id_revoked', 'A revoked client ID cannot be reactivated', [
          { field: 'status', message: 'cannot change once revoked' },
          { field: 'label', message: 'cannot change once revoked' },
        ]),
      );
    }
    // Revoking again, by DELETE or by PUT status revoked alone, answers the record as it was
    // revoked and writes nothing.
    t.clock.advance(1_000);
    const again = await send('DELETE', `${prefix}/${made.id}`, auth());
    expect(again.json()).toEqual(revoked);
    const before = await snapshot();
    const put = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'revoked' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual(revoked);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a label', { label: 'Renamed' }],
    ['allowed domains', { allowedDomains: ['https://other.example'] }],
    ['fees', { feePercentage: '1', feeAddress: WALLET }],
    ['an unset (null) setting', { rateLimitPerMinute: null }],
    ['an operator wallet and status revoked', { status: 'revoked', operatorWalletAddress: WALLET }],
  ])(
    'refuses to change %s of a revoked client ID: 400, nothing written',
    async (_name, payload) => {
      const made = await created(prefix, auth(), { label: 'Revoked', allowedDomains: [SHOP] });
      expect((await send('DELETE', `${prefix}/${made.id}`, auth())).statusCode).toBe(200);
      const fields = Object.keys(payload).filter((field) => field !== 'status');
      await refused(
        { method: 'PUT', url: `${prefix}/${made.id}`, headers: auth(), payload },
        400,
        envelope(
          400,
          'client_id_revoked',
          'A revoked client ID cannot be changed',
          fields.map((field) => ({ field, message: 'cannot change once revoked' })),
        ),
      );
    },
  );

  it('revokes with PUT status revoked as well', async () => {
    const made = await created(prefix, auth(), { label: 'Put off', allowedDomains: [SHOP] });
    const res = await send('PUT', `${prefix}/${made.id}`, auth(), { status: 'revoked' });
    expect(res.json().status).toBe('revoked');
    expect(
      (await send('GET', CURRENCY, { 'x-client-id': made.clientId, origin: SHOP })).statusCode,
    ).toBe(403);
  });

  it('never lets one account read or change another’s client ID, either way', async () => {
    const mine = await created(prefix, auth(), { label: 'Mine', allowedDomains: [SHOP] });
    const theirs = await created(prefix, authB(), { label: 'Theirs', allowedDomains: [SHOP] });
    for (const [caller, target] of [
      [auth(), theirs],
      [authB(), mine],
    ] as const) {
      const url = `${prefix}/${target.id}`;
      await refused({ method: 'GET', url, headers: caller }, 404, NOT_FOUND);
      await refused(
        { method: 'PUT', url, headers: caller, payload: { label: 'taken over' } },
        404,
        NOT_FOUND,
      );
      await refused(
        { method: 'PUT', url, headers: caller, payload: { status: 'inactive' } },
        404,
        NOT_FOUND,
      );
      // An invalid body on someone else's id still answers 404: ownership is checked first.
      await refused(
        { method: 'PUT', url, headers: caller, payload: { label: '' } },
        404,
        NOT_FOUND,
      );
      await refused({ method: 'DELETE', url, headers: caller }, 404, NOT_FOUND);
      const list = await send('GET', prefix, caller);
      expect(list.body).not.toContain(target.id);
      expect(list.body).not.toContain(target.clientId);
    }
    for (const target of [mine, theirs]) {
      const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, target.id));
      expect(row).toMatchObject({ status: 'active', label: target.label });
    }
  });
});
