import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  a,
  bDestination,
  CURRENCY,
  created,
  destination,
  envelope,
  inactiveDestination,
  invalid,
  refused,
  SHOP,
  send,
  setupClientIdApp,
  t,
} from '../../test/client-ids.ts';
import { clientIds } from '../db/schema.ts';

/**
 * Where `/v1/client-ids` (session) differs from `/v2/client-ids` (API key), and the /v1 binding
 * of a client ID to a payee destination.
 */

setupClientIdApp();

describe('/v2 and /v1 differences', () => {
  it('refuses to empty allowedDomains on /v2, but a /v1 backend client ID stays editable there', async () => {
    const browser = await created('/v2/client-ids', a.apiKey, {
      label: 'B',
      allowedDomains: [SHOP],
    });
    const put = (id: string, payload: object): InjectOptions => ({
      method: 'PUT',
      url: `/v2/client-ids/${id}`,
      headers: a.apiKey,
      payload,
    });
    await refused(
      put(browser.id, { allowedDomains: [] }),
      400,
      invalid({ field: 'allowedDomains', message: 'must contain at least 1 origin' }),
    );
    await refused(
      put(browser.id, { allowedDomains: null }),
      400,
      invalid({ field: 'allowedDomains', message: 'must be array' }),
    );
    // Not a /v2 field: ignored, as every unknown body field (docs/architecture.md).
    const ignored = await send('PUT', `/v2/client-ids/${browser.id}`, a.apiKey, {
      payeeDestinationId: destination.destinationId,
    });
    expect(ignored.statusCode, ignored.body).toBe(200);
    const read = await send('GET', `/v1/client-ids/${browser.id}`, a.session);
    expect(read.json()).toMatchObject({ payeeDestinationId: null });

    const backend = await created('/v1/client-ids', a.session, { label: 'Server' });
    const renamed = await send('PUT', `/v2/client-ids/${backend.id}`, a.apiKey, {
      label: 'Server 2',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ label: 'Server 2', allowedDomains: [] });
    expect(renamed.json()).not.toHaveProperty('payeeDestinationId');
  });

  it('makes backend client IDs on /v1: no domains, no Origin check; domains can be emptied with [] or null', async () => {
    const backend = await created('/v1/client-ids', a.session, { label: 'Server' });
    expect(backend).toMatchObject({ allowedDomains: [], payeeDestinationId: null });
    expect((await send('GET', CURRENCY, { 'x-client-id': backend.clientId })).statusCode).toBe(200);

    const browser = await created('/v1/client-ids', a.session, {
      label: 'Web',
      allowedDomains: [SHOP],
    });
    const noOrigin = await send('GET', CURRENCY, { 'x-client-id': browser.clientId });
    expect(noOrigin.json()).toEqual(envelope(403, 'origin_required', 'Origin header is required'));
    for (const allowedDomains of [null, []]) {
      await send('PUT', `/v1/client-ids/${browser.id}`, a.session, { allowedDomains: [SHOP] });
      const res = await send('PUT', `/v1/client-ids/${browser.id}`, a.session, { allowedDomains });
      expect(res.json().allowedDomains).toEqual([]);
      expect((await send('GET', CURRENCY, { 'x-client-id': browser.clientId })).statusCode).toBe(
        200,
      );
    }
    await refused(
      {
        method: 'POST',
        url: '/v1/client-ids',
        headers: a.session,
        payload: {
          label: 'Many',
          allowedDomains: Array.from({ length: 11 }, (_, i) => `https://s${i}.example`),
        },
      },
      400,
      invalid({ field: 'allowedDomains', message: 'must contain at most 10 origins' }),
    );
  });
});

describe('payee destination binding on /v1', () => {
  const bindingError = (message: string) => invalid({ field: 'payeeDestinationId', message });

  it('binds an active destination of the account on create, shows it, and unbinds with null', async () => {
    const made = await created('/v1/client-ids', a.session, {
      label: 'Bound',
      payeeDestinationId: destination.destinationId,
    });
    expect(made.payeeDestinationId).toBe(destination.destinationId);
    const [row] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(row?.payeeDestinationId).toBe(destination.id);
    const list = (await send('GET', '/v1/client-ids', a.session)).json() as Record<
      string,
      unknown
    >[];
    expect(list.find((c) => c.id === made.id)?.payeeDestinationId).toBe(destination.destinationId);
    expect((await send('GET', `/v2/client-ids/${made.id}`, a.apiKey)).json()).not.toHaveProperty(
      'payeeDestinationId',
    );

    // A PUT without the field keeps the binding; null removes it; a new PUT binds again.
    const renamed = await send('PUT', `/v1/client-ids/${made.id}`, a.session, { label: 'Renamed' });
    expect(renamed.json().payeeDestinationId).toBe(destination.destinationId);
    const unbound = await send('PUT', `/v1/client-ids/${made.id}`, a.session, {
      payeeDestinationId: null,
    });
    expect(unbound.json().payeeDestinationId).toBeNull();
    const [cleared] = await t.db.select().from(clientIds).where(eq(clientIds.id, made.id));
    expect(cleared?.payeeDestinationId).toBeNull();
    const rebound = await send('PUT', `/v1/client-ids/${made.id}`, a.session, {
      payeeDestinationId: destination.destinationId,
    });
    expect(rebound.json().payeeDestinationId).toBe(destination.destinationId);
  });

  it('links made with a bound client ID pay the bound destination', async () => {
    const made = await created('/v1/client-ids', a.session, {
      label: 'Checkout',
      payeeDestinationId: destination.destinationId,
    });
    const link = await send(
      'POST',
      '/v2/secure-payments',
      { 'x-client-id': made.clientId },
      { requests: [{ amount: '5' }] },
    );
    expect(link.statusCode, link.body).toBe(201);
  });

  it.each([
    [
      'an inactive destination',
      () => inactiveDestination.destinationId,
      'is inactive; bind an active payee destination',
    ],
    [
      'another account’s destination',
      () => bDestination.destinationId,
      'is not a payee destination of this account',
    ],
    ['a malformed destination id', () => 'not-a-destination', 'is not a valid destination ID'],
  ])(
    'refuses %s with 400 on create and on change, writing nothing',
    async (_name, value, message) => {
      await refused(
        {
          method: 'POST',
          url: '/v1/client-ids',
          headers: a.session,
          payload: { label: 'X', payeeDestinationId: value() },
        },
        400,
        bindingError(message),
      );
      const made = await created('/v1/client-ids', a.session, {
        label: 'Bound',
        payeeDestinationId: destination.destinationId,
      });
      await refused(
        {
          method: 'PUT',
          url: `/v1/client-ids/${made.id}`,
          headers: a.session,
          payload: { payeeDestinationId: value() },
        },
        400,
        bindingError(message),
      );
    },
  );

  it('neither binds nor unbinds a revoked client ID', async () => {
    const made = await created('/v1/client-ids', a.session, {
      label: 'Revoked binding',
      payeeDestinationId: destination.destinationId,
    });
    expect((await send('DELETE', `/v1/client-ids/${made.id}`, a.session)).statusCode).toBe(200);
    const error = envelope(400, 'client_id_revoked', 'A revoked client ID cannot be changed', [
      { field: 'payeeDestinationId', message: 'cannot change once revoked' },
    ]);
    for (const payeeDestinationId of [null, destination.destinationId]) {
      await refused(
        {
          method: 'PUT',
          url: `/v1/client-ids/${made.id}`,
          headers: a.session,
          payload: { payeeDestinationId },
        },
        400,
        error,
      );
    }
  });

  it('reports a bad binding together with other bad fields', async () => {
    await refused(
      {
        method: 'POST',
        url: '/v1/client-ids',
        headers: a.session,
        payload: { label: '', payeeDestinationId: inactiveDestination.destinationId },
      },
      400,
      invalid(
        { field: 'label', message: 'must be 1 to 100 characters' },
        { field: 'payeeDestinationId', message: 'is inactive; bind an active payee destination' },
      ),
    );
  });
});
