import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';

/**
 * The reference's health checks, `GET /v2/health` (Request API) and `GET /v1/health` (Auth API):
 * no credentials, and the answer of readiness, so a monitor sees a process without its
 * database as down.
 */

const PATHS = ['/v2/health', '/v1/health'];

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe.each(PATHS)('GET %s', (path) => {
  it('answers 200 {status: "ready"} without credentials, and ignores a wrong one', async () => {
    for (const headers of [{}, { 'x-api-key': 'sk_wrong' }, { 'x-client-id': 'cli_wrong' }]) {
      const res = await t.app.inject({ method: 'GET', url: path, headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ status: 'ready' });
    }
  });

  it('answers 503 database_unavailable when the database is gone, as /readyz does', async () => {
    const broken = await createTestApp();
    await broken.database.close();
    for (const url of [path, '/readyz']) {
      const res = await broken.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        code: 'database_unavailable',
        message: 'Database unreachable',
      });
    }
    await broken.app.close();
  });

  it('is in the OpenAPI document with no security', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths[path]?.get;
    expect(operation).toBeDefined();
    expect(operation.security ?? []).toEqual([]);
  });
});
