import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { createTenant, type Tenant } from '../../test/fixtures.ts';
import { REFUSING_URL } from '../../test/process.ts';
import { AlternateStatusError, AppError } from '../base/errors.ts';
import { openPostgres } from '../db/postgres.ts';

/** A stand-in secret that must never reach a response or the log in clear. */
const LEAKY_DETAIL = 'connection to db-internal.corp:5432 failed for user admin';

let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  t = await createTestApp({
    extend: (app) => {
      app.get('/test/boom', async () => {
        throw new Error(LEAKY_DETAIL);
      });
      // A query on a Postgres that refuses connections, as during a restart.
      app.get('/test/database-down', async () => {
        const down = openPostgres(`${REFUSING_URL.replace('http', 'postgres')}/payreq`, 1);
        try {
          return await down.db.execute(sql`select 1`);
        } finally {
          await down.close();
        }
      });
      app.get('/test/crosschain/:cause', async (request) => {
        const { cause } = request.params as { cause: string };
        if (cause === 'down') {
          throw new AlternateStatusError('crosschain_unavailable', 'aggregator down', {
            headers: { 'retry-after': '30' },
            cause: new Error(LEAKY_DETAIL),
          });
        }
        throw new AppError('crosschain_unavailable', 'not built');
      });
      app.post(
        '/test/echo',
        {
          config: { auth: ['apiKey'] },
          schema: {
            body: Type.Object(
              {
                amount: Type.String({ minLength: 1 }),
                items: Type.Array(
                  Type.Object({ id: Type.Integer() }, { additionalProperties: false }),
                ),
              },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => request.body,
      );
    },
  });
  tenant = await createTenant(t.db);
});
afterAll(() => t.close());

function post(payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/test/echo',
    headers: { 'x-api-key': tenant.apiKey, ...headers },
    ...(typeof payload === 'string' ? { body: payload } : { payload: payload as object }),
  });
}

describe('the error envelope', () => {
  it('answers a code with its second status for its second cause, the code the same', async () => {
    const down = await t.app.inject({ method: 'GET', url: '/test/crosschain/down' });
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('30');
    expect(down.json()).toEqual({
      statusCode: 503,
      message: 'aggregator down',
      error: 'Service Unavailable',
      code: 'crosschain_unavailable',
    });
    expect(down.body).not.toContain('db-internal');
    const notBuilt = await t.app.inject({ method: 'GET', url: '/test/crosschain/not-built' });
    expect(notBuilt.statusCode).toBe(400);
    expect(notBuilt.json()).toMatchObject({ code: 'crosschain_unavailable', error: 'Bad Request' });
  });

  it('reports every schema violation as 400 Validation failed with field errors', async () => {
    const res = await post({ items: [{ id: 'x' }, { id: 2, extra: true }], note: 'hi' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({
      statusCode: 400,
      message: 'Validation failed',
      error: 'Bad Request',
      code: 'validation_failed',
    });
    // Unknown fields are dropped, not reported (docs/architecture.md, "Unknown input").
    expect(body.errors).toEqual([
      { field: 'amount', message: 'is required' },
      { field: 'items[0].id', message: 'must be integer' },
    ]);
  });

  it('drops unknown body fields, at any depth, before the handler sees them', async () => {
    const res = await post({ amount: '1', items: [{ id: 1, extra: true }], note: 'hi' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ amount: '1', items: [{ id: 1 }] });
  });

  it('never turns a JSON number into a string: money must not pass through a float', async () => {
    const res = await post({ amount: 0.1, items: [] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'amount', message: 'must be string' }]);
    const raw = await post('{"amount": 12345678901234567890.123, "items": []}', {
      'content-type': 'application/json',
    });
    expect(raw.statusCode).toBe(400);
  });

  it('passes a valid body through untouched', async () => {
    const res = await post({ amount: '1.5', items: [{ id: 1 }] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ amount: '1.5', items: [{ id: 1 }] });
  });

  it('answers 400 in the envelope for a body that is not JSON', async () => {
    const res = await post('{"amount": ', { 'content-type': 'application/json' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      code: 'invalid_json',
    });
  });

  it('answers 415 in the envelope for an unsupported media type', async () => {
    const res = await post('amount=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({
      statusCode: 415,
      error: 'Unsupported Media Type',
      code: 'unsupported_media_type',
    });
  });

  it('answers 413 in the envelope for a body over 1 MiB', async () => {
    const res = await post({ amount: 'x'.repeat(1_100_000), items: [] });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, code: 'body_too_large' });
  });

  it('checks credentials before it reads the body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/test/echo', payload: { nope: 1 } });
    expect(res.statusCode).toBe(401);
  });

  it('answers unknown routes with a 404 envelope without echoing the query', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v2/nothing-here?secret=abc' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      statusCode: 404,
      message: 'Route GET /v2/nothing-here not found',
      error: 'Not Found',
      code: 'route_not_found',
    });
  });

  it('answers a malformed URL and an over-long path segment in the envelope', async () => {
    const bad = await t.app.inject({ method: 'GET', url: '/v2/request/%E0%A4%A' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'bad_url' });
    const long = await t.app.inject({ method: 'GET', url: `/v2/request/${'a'.repeat(300)}` });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({
      statusCode: 414,
      message: 'Path segments are limited to 256 characters',
      error: 'URI Too Long',
      code: 'uri_too_long',
    });
  });

  it('hides an unexpected failure behind a generic 500 and logs it in full', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      statusCode: 500,
      message: 'Internal server error',
      error: 'Internal Server Error',
      code: 'internal_error',
    });
    expect(res.body).not.toContain('db-internal');
    const requestId = res.headers['x-request-id'];
    const logged = t.logs
      .entries()
      .find((entry) => entry.level === 50 && entry.reqId === requestId) as
      | { err: { message: string; stack: string } }
      | undefined;
    expect(logged?.err.message).toBe(LEAKY_DETAIL);
    expect(logged?.err.stack).toContain('error-handler.test.ts');
  });

  it('answers 503 database_unavailable when the database cannot be reached', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/database-down' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      statusCode: 503,
      message: 'Database unreachable',
      error: 'Service Unavailable',
      code: 'database_unavailable',
    });
    const requestId = res.headers['x-request-id'];
    const levels = t.logs
      .entries()
      .filter((entry) => entry.reqId === requestId)
      .map((entry) => Number(entry.level))
      .filter((level) => level >= 40);
    // Logged as a warning: nothing of ours is broken.
    expect(levels).toEqual([40]);
  });

  it('gives every response a request id, keeping a well-formed one from the caller', async () => {
    const minted = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(minted.headers['x-request-id']).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const kept = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'trace-42' },
    });
    expect(kept.headers['x-request-id']).toBe('trace-42');
    const refused = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\nwith newline' },
    });
    expect(refused.headers['x-request-id']).not.toContain('bad');
  });
});

describe('logs', () => {
  it('never contain credentials sent in headers', async () => {
    const logs = t.logs.text();
    await t.app.inject({
      method: 'GET',
      url: '/test/boom',
      headers: { 'x-api-key': tenant.apiKey, authorization: 'Bearer session-secret-value' },
    });
    await post({ amount: '1', items: [] });
    expect(t.logs.text().length).toBeGreaterThan(logs.length);
    expect(t.logs.text()).not.toContain(tenant.apiKey);
    expect(t.logs.text()).not.toContain('session-secret-value');
  });

  it('masks link tokens and query values in logged URLs, keeping the route', async () => {
    const token = '01JZZLOGGEDTOKENQ5N8XW2K3M';
    const wallet = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
    const before = t.logs.lines.length;
    for (const url of [
      `/v2/secure-payments/${token}/pay?wallet=${wallet}&amount=1`,
      `/v2/payouts/recurring/token/${token}`,
      `/?token=${token}`,
    ]) {
      await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': tenant.apiKey } });
    }
    const lines = t.logs.lines.slice(before).join('');
    expect(lines).not.toContain(token);
    expect(lines).not.toContain(wallet);
    const urls = t.logs
      .entries()
      .slice(before)
      .map((entry) => (entry.req as { url?: string } | undefined)?.url)
      .filter((url) => url !== undefined);
    expect([...new Set(urls)]).toEqual([
      '/v2/secure-payments/…/pay?wallet=…&amount=…',
      '/v2/payouts/recurring/token/…',
      '/?token=…',
    ]);
  });

  it('redacts credential fields of logged objects', async () => {
    t.app.log.info(
      {
        req: { headers: { 'x-api-key': tenant.apiKey } },
        apiKey: tenant.apiKey,
        body: { password: 'hunter22' },
      },
      'redaction probe',
    );
    const probe = t.logs.entries().find((entry) => entry.msg === 'redaction probe');
    expect(JSON.stringify(probe)).not.toContain(tenant.apiKey);
    expect(JSON.stringify(probe)).not.toContain('hunter22');
    expect(probe).toMatchObject({ apiKey: '[redacted]', body: { password: '[redacted]' } });
  });
});

describe('health', () => {
  it('answers liveness and readiness, and 503 when the database is gone', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({
      status: 'ok',
    });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
      status: 'ready',
    });
    const broken = await createTestApp();
    await broken.database.close();
    const res = await broken.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ statusCode: 503, message: 'Database unreachable' });
    await broken.app.close();
  });
});
