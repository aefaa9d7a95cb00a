import { describe, expect, it } from 'vitest';
import { insertPayer, transferCount } from '../offramp-world.ts';
import { secretsOf, snapshotOfA, urlFor } from '../tenancy-checks.ts';
import { KINDS, type Kind } from '../tenancy-probe-kit.ts';
import { PROBES } from '../tenancy-probes.ts';
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

/**
 * Crypto-to-fiat's `/pay` names three things: the request, the payer (`clientUserId`) and its
 * payment details. B may name none of A's: not A's payer nor A's bank account on B's own
 * request, nor A's request with B's payer, with any credential of B's; each is refused before
 * the off-ramp is asked, so no transfer is made. The same calls with each account's own
 * objects succeed, so the refusals are the ownership checks.
 */
describe('crypto-to-fiat /pay across tenants', () => {
  it('refuses B A’s payer, A’s payment details and A’s request, and makes no transfer', async () => {
    const request = async (headers: Record<string, string>) => {
      const res = await call('POST', '/v2/request', headers, {
        amount: '7',
        invoiceCurrency: 'USDC-sepolia',
        paymentCurrency: 'USDC-sepolia',
        isCryptoToFiatAvailable: true,
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().requestId as string;
    };
    const requestOfA = await request(a.headers.apiKey);
    const requestOfB = await request(b.headers.apiKey);
    const payerOfA = await insertPayer({ t }, a.accountId, 'c2f-payer-of-a');
    const payerOfB = await insertPayer({ t }, b.accountId, 'c2f-payer-of-b');
    const pay = (requestId: string, clientUserId: string, paymentDetailsId: string) =>
      `/v2/request/${requestId}/pay?${new URLSearchParams({ clientUserId, paymentDetailsId })}`;
    const route = t.routes.find((r) => `${r.method} ${r.url}` === 'GET /v2/request/:requestId/pay');
    const kinds = KINDS.filter((kind) => route?.auth?.includes(kind as never));
    expect(kinds, 'the kinds of credentials /pay takes').toContain('apiKey');
    const before = await transferCount({ t });
    const cases: [string, string, number, string][] = [
      // A's payer on B's request: B has no payer by that id.
      [
        pay(requestOfB, 'c2f-payer-of-a', payerOfA.paymentDetailsId),
        'A’s payer',
        404,
        'payer_not_found',
      ],
      // A's bank account with B's own payer.
      [
        pay(requestOfB, 'c2f-payer-of-b', payerOfA.paymentDetailsId),
        'A’s payment details',
        400,
        'payment_details_not_usable',
      ],
      // A's request, with B's own payer and bank account.
      [
        pay(requestOfA, 'c2f-payer-of-b', payerOfB.paymentDetailsId),
        'A’s request',
        404,
        'request_not_found',
      ],
    ];
    for (const [url, what, status, code] of cases) {
      for (const kind of kinds) {
        if (kind === 'foreignPair') continue;
        const res = await call('GET', url, b.headers[kind]);
        const name = `${what} as B's ${kind} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, name).toBe(status);
        expect(res.json().code, name).toBe(code);
        expect(res.body, name).not.toContain(payerOfA.payerId);
      }
    }
    expect(await transferCount({ t }), 'a refused call made a transfer').toBe(before);
    // Each account with its own objects is paid to a deposit address.
    const own = [
      [pay(requestOfA, 'c2f-payer-of-a', payerOfA.paymentDetailsId), a.headers.apiKey],
      [pay(requestOfB, 'c2f-payer-of-b', payerOfB.paymentDetailsId), b.headers.apiKey],
    ] as const;
    for (const [url, headers] of own) {
      const res = await call('GET', url, headers);
      expect(res.statusCode, res.body).toBe(200);
    }
    expect(await transferCount({ t })).toBe(before + 2);
  });
});
