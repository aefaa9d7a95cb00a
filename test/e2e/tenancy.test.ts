import { describe, expect, it } from 'vitest';
import { secretsOf, snapshotOfA, urlFor } from '../tenancy-checks.ts';
import { KINDS, type Kind, PROBES } from '../tenancy-probes.ts';
import { a, b, call, makeObjects, setupTenancy, shared, t } from '../tenancy-world.ts';

/**
 * Tenant isolation, for every route the app serves. Two tenants, A and B, each hold every kind
 * of credential: an API key, a client ID, a wallet session, an orchestrator key, and that
 * orchestrator paired with a client ID linked to it. For each route, B's credentials are sent
 * with A's objects (in the path, query or body) and must be refused (404 or 403, or the one
 * documented 400/409 where the reference API answers so) without a byte of A's data and
 * without changing any row of A's; then A's own call, with the same objects, must succeed, so
 * every refusal above is the ownership check and not a broken fixture.
 *
 * The matrix is generated from the route table: a route this file has no entry for fails the
 * test until one is added to PROBES (test/tenancy-probes.ts).
 */

setupTenancy();

describe('tenant isolation', () => {
  it('has a probe for every authenticated route, and every probe names a route', () => {
    const routes = t.routes.filter((r) => !r.hidden && r.auth !== undefined);
    const keys = routes.map((r) => `${r.method} ${r.url}`);
    expect(
      keys.filter((key) => !(key in PROBES)),
      'routes without a probe: add them to PROBES',
    ).toEqual([]);
    expect(Object.keys(PROBES).filter((key) => !keys.includes(key))).toEqual([]);
  });

  const routeKeys = Object.keys(PROBES);
  it.each(routeKeys)(
    '%s: B is refused on A’s objects, learns nothing, changes nothing',
    async (key) => {
      const route = t.routes.find((r) => `${r.method} ${r.url}` === key);
      const probe = PROBES[key];
      if (!route?.auth || !probe) throw new Error(`${key} is not an authenticated route`);
      const mutating = route.method !== 'GET';
      const o = mutating ? await makeObjects() : shared;
      const secrets = secretsOf(o);
      const before = await snapshotOfA();

      let allowedOwn = 0;
      for (const kind of KINDS) {
        const url = urlFor(route, probe, o, b);
        const payload = probe.body?.(o, b);
        const res = await call(route.method, url, b.headers[kind], payload);
        const name = `${key} as B's ${kind} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, name).toBeLessThan(500);
        const accepted = route.auth.includes(kind as never);
        if (!accepted || kind === 'foreignPair') {
          expect([401, 403], name).toContain(res.statusCode);
          continue;
        }
        switch (probe.expect.kind) {
          case 'refused': {
            const allowed = probe.expect.codes ?? [];
            const ok =
              res.statusCode === 403 ||
              res.statusCode === 404 ||
              (allowed.includes(res.json().code) && [400, 409].includes(res.statusCode));
            expect(ok, name).toBe(true);
            break;
          }
          case 'own':
            if (res.statusCode < 300) allowedOwn += 1;
            break;
          case 'public':
            continue; // answers anyone; nothing of A's to hide
        }
        const sent = `${url} ${JSON.stringify(payload ?? {})}`;
        for (const secret of secrets) {
          if (sent.includes(secret) || sent.includes(encodeURIComponent(secret))) continue;
          expect(res.body.includes(secret), `${name} leaked ${secret}`).toBe(false);
        }
      }
      if (probe.expect.kind === 'own') {
        expect(allowedOwn, `${key}: B's own call never succeeded`).toBeGreaterThan(0);
      }
      expect(await snapshotOfA(), `${key}: B changed A's rows`).toEqual(before);

      // The same call as A works: the refusals above were the ownership check.
      if (probe.expect.kind === 'refused') {
        const kind = probe.as ?? (route.auth[0] as Kind);
        const res = await call(
          route.method,
          urlFor(route, probe, o, a),
          a.headers[kind],
          probe.body?.(o, a),
        );
        const name = `${key} as A's ${kind}: ${res.body.slice(0, 300)}`;
        if (probe.ownCode === undefined) expect(res.statusCode, name).toBeLessThan(300);
        else expect(res.json().code, name).toBe(probe.ownCode);
      }
    },
  );
});
