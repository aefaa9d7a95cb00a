import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import {
  asBackend,
  asKey,
  call,
  register,
  setupWebhookApps,
  t,
} from '../../test/webhook-routes.ts';
import { webhooks } from '../db/schema.ts';

/**
 * `PUT /v1/webhook/{id}` as Auth API 0.14.0 describes it, a toggle with no body, next to the
 * `{active}` body we had: no body, an empty JSON body and `{}` flip the endpoint; `{active}`
 * sets it. Sent over a real socket too, as a client's `fetch` sends it.
 */

setupWebhookApps();

async function activeInDatabase(id: string): Promise<boolean | undefined> {
  const [row] = await t.db
    .select({ active: webhooks.active })
    .from(webhooks)
    .where(eq(webhooks.id, id));
  return row?.active;
}

describe('PUT /v1/webhook/:id as a toggle', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(t.db, 'Toggler');
  });

  it('flips the endpoint when sent without a body or a content type, each time', async () => {
    const { id } = await register(asBackend(tenant), 'https://hooks.example.com/toggle');
    for (const expected of [false, true, false]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/v1/webhook/${id}`,
        headers: asBackend(tenant),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id, active: expected, isActive: expected });
      expect(await activeInDatabase(id)).toBe(expected);
    }
  });

  it('flips it for an empty JSON body, {} and a body of unknown fields; {active} still sets it', async () => {
    const { id } = await register(asKey(tenant), 'https://hooks.example.com/toggle-bodies');
    const empty = await t.app.inject({
      method: 'PUT',
      url: `/v1/webhook/${id}`,
      headers: { ...asKey(tenant), 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json().active).toBe(false);
    expect((await call('PUT', `/v1/webhook/${id}`, asKey(tenant), {})).json().active).toBe(true);
    const unknown = await call('PUT', `/v1/webhook/${id}`, asKey(tenant), { enabled: true });
    expect(unknown.json().active).toBe(false);
    // {active} sets, whatever the current state: twice the same leaves it so.
    for (const active of [false, false, true, true]) {
      const res = await call('PUT', `/v1/webhook/${id}`, asKey(tenant), { active });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().active).toBe(active);
      expect(await activeInDatabase(id)).toBe(active);
    }
    // Any other JSON body is still refused, changing nothing.
    const wrong = await call('PUT', `/v1/webhook/${id}`, asKey(tenant), { active: 'no' });
    expect(wrong.statusCode).toBe(400);
    expect(await activeInDatabase(id)).toBe(true);
    const text = await t.app.inject({
      method: 'PUT',
      url: `/v1/webhook/${id}`,
      headers: { ...asKey(tenant), 'content-type': 'application/json' },
      payload: 'not json',
    });
    expect(text.statusCode).toBe(400);
    expect(await activeInDatabase(id)).toBe(true);
  });

  it('toggles over a real socket with fetch’s bodiless PUT (content-length 0, no content type)', async () => {
    const { id } = await register(asBackend(tenant), 'https://hooks.example.com/toggle-socket');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/v1/webhook/${id}`, {
      method: 'PUT',
      headers: asBackend(tenant),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id, active: false });
    const withType = await fetch(`http://127.0.0.1:${port}/v1/webhook/${id}`, {
      method: 'PUT',
      headers: { ...asBackend(tenant), 'content-type': 'application/json' },
    });
    expect(withType.status).toBe(200);
    expect(await withType.json()).toMatchObject({ id, active: true });
  });

  it('documents the body as optional in the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const put = document.paths['/v1/webhook/{id}'].put;
    expect(put.requestBody.required).toBe(false);
    // Every other body stays required.
    const others = Object.entries(
      document.paths as Record<string, Record<string, { requestBody?: { required: boolean } }>>,
    )
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => [
          `${method} ${path}`,
          op.requestBody?.required,
        ]),
      )
      .filter(([name, required]) => required === false && name !== 'put /v1/webhook/{id}');
    expect(others).toEqual([]);
  });
});
