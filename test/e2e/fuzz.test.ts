import { getTableName, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import fc from 'fast-check';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTimed } from '../../src/base/timed-signature.ts';
import { queryRows } from '../../src/db/client.ts';
import * as schema from '../../src/db/schema.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import {
  type FakeCompliance,
  startFakeCompliance,
} from '../../src/sandbox/compliance/fake-compliance.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { challenge, verify } from '../sign-in.ts';

/**
 * Malformed requests to every route, generated from the route table and the OpenAPI document
 * (so a new route is fuzzed without anyone adding it), sent with credentials the route accepts
 * so they get past authentication to validation and the handlers. Every answer must be below
 * 500, carry the error envelope and an `x-request-id` when it is an error, and a refused
 * request must leave every table as it found it. Seeded and bounded: `FUZZ_SEED` and
 * `FUZZ_RUNS` replay or widen a run; the seed is printed.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 2_400);
/** Routes that end the session the fuzz runs with. */
const SKIPPED = new Set(['POST /v1/auth/logout']);
const OFFRAMP_SECRET = 'fuzz-offramp-secret';

type Kind = 'apiKey' | 'clientId' | 'session' | 'orchestratorKey' | 'orchestratorPair';

interface Operation {
  readonly method: string;
  readonly url: string;
  readonly auth: readonly string[] | undefined;
  readonly query: readonly string[];
  readonly body: readonly string[] | null;
}

/** Strings that have broken services before: NUL, lone surrogates, huge numbers, long text. */
const nasty = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    '1e30',
    '-1',
    '0',
    '9999999999999999999999999999',
    'NaN',
    'null',
    'true',
    '[]',
    '{}',
    '',
    ' ',
    '../../etc/passwd',
    '🙂',
    'A'.repeat(300),
    `0x${'0'.repeat(40)}`,
    `0x${'f'.repeat(64)}`,
    '01HZZZZZZZZZZZZZZZZZZZZZZZ',
    "'; drop table requests; --",
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** What a path segment may become: encoded nasty text, or raw percent sequences. */
const segment = fc.oneof(
  nasty.map((text) => encodeText(text).replace(/%25/g, '%')),
  fc.constantFrom('%00', '%ED%A0%80', '%FF', '%', '%zz', '%C0%AF', 'x'.repeat(300)),
);

const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(1e30),
  fc.constant(-1),
  fc.array(nasty, { maxLength: 3 }),
  fc.dictionary(nasty, nasty, { maxKeys: 3 }),
);

function bodyFor(properties: readonly string[] | null): fc.Arbitrary<string | undefined> {
  const mutated =
    properties && properties.length > 0
      ? fc
          .dictionary(fc.constantFrom(...properties), jsonish, { maxKeys: properties.length })
          .map((object) => JSON.stringify(object))
      : fc.constant('{}');
  return fc.oneof(
    mutated,
    mutated,
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.constantFrom(
      '{"a":',
      '\u0000',
      '{"requests":[{"amount":"\\u0000"}]}',
      '{"customerInfo":{"firstName":"\\ud800"}}',
      `${'['.repeat(500)}${']'.repeat(500)}`,
      'null',
      '',
    ),
    fc.constant(undefined),
  );
}

describe('fuzzing every route', () => {
  let t: TestApp;
  let tenant: Tenant;
  const credentials = new Map<Kind, Record<string, string>>();
  let operations: Operation[] = [];
  let tables: string[] = [];
  let compliance: FakeCompliance;

  beforeAll(async () => {
    // The payer routes reach their handlers' provider calls (a refusal must still write nothing).
    compliance = await startFakeCompliance({ webhookSecret: 'fuzz-callback-secret-0' });
    t = await createTestApp({ env: { COMPLIANCE_URL: compliance.url } });
    // An off-ramp (nowhere: no answer comes) so crypto-to-fiat /pay runs its checks, and the
    // secret its callbacks are signed with, so signed bodies reach the handler.
    t = await createTestApp({
      env: { OFFRAMP_URL: 'http://127.0.0.1:0', OFFRAMP_WEBHOOK_SECRET: OFFRAMP_SECRET },
    });
    tenant = await createTenant(t.db, 'Fuzzed');
    const wallet = privateKeyToAccount(`0x${'42'.repeat(32)}`);
    const issued = await challenge(t, wallet.address);
    const session = await verify(t, {
      ...issued,
      signature: await wallet.signMessage({ message: issued.message }),
    });
    const orchestrator = await createOrchestrator(t.db, 'Fuzz partner');
    await linkClientId(t.db, orchestrator.orchestratorId, tenant.backendClientId);
    credentials.set('apiKey', { 'x-api-key': tenant.apiKey });
    credentials.set('clientId', { 'x-client-id': tenant.backendClientId });
    credentials.set('session', { authorization: `Bearer ${session.json().sessionToken}` });
    credentials.set('orchestratorKey', { 'x-orchestrator-key': orchestrator.orchestratorKey });
    credentials.set('orchestratorPair', {
      'x-orchestrator-key': orchestrator.orchestratorKey,
      'x-client-id': tenant.backendClientId,
    });

    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    operations = t.routes
      .filter((route) => !route.hidden && !route.url.includes('*'))
      .filter((route) => !SKIPPED.has(`${route.method} ${route.url}`))
      .map((route) => {
        const documented = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
        return {
          method: route.method,
          url: route.url,
          auth: route.auth,
          query: (documented?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
          body: documented?.requestBody
            ? Object.keys(
                documented.requestBody.content['application/json']?.schema?.properties ?? {},
              )
            : null,
        };
      });
    tables = (Object.values(schema) as unknown[])
      .filter((value) => is(value, PgTable))
      .map((table) => getTableName(table as PgTable));
  });
  afterAll(async () => {
    await t?.close();
    await compliance?.close();
  });

  const rowCounts = async () => {
    const [row] = await queryRows<Record<string, number>>(
      t.db,
      sql.raw(
        `select ${tables.map((name) => `(select count(*) from "${name}")::int as "${name}"`).join(', ')}`,
      ),
    );
    return row ?? {};
  };

  it(`sends ${RUNS} malformed requests (seed ${SEED}): no 5xx, the envelope on every error, no row written by a refusal`, async () => {
    // biome-ignore lint/suspicious/noConsole: a randomised test prints its seed.
    console.log(`fuzz seed ${SEED}, ${RUNS} runs over ${operations.length} routes`);
    expect(operations.length).toBeGreaterThan(40);
    let sent = 0;
    let refused = 0;
    const statuses = new Map<number, number>();
    let before = await rowCounts();
    const request = fc.integer({ min: 0, max: operations.length - 1 }).chain((index) => {
      const operation = operations[index] as Operation;
      const params = (operation.url.match(/:[A-Za-z]+/g) ?? []).length;
      return fc.record({
        operation: fc.constant(operation),
        segments: fc.array(segment, { minLength: params, maxLength: params }),
        query: fc.array(
          fc.tuple(fc.oneof(fc.constantFrom(...operation.query, 'extra'), nasty), nasty),
          { maxLength: 4 },
        ),
        body: bodyFor(operation.body),
        contentType: fc.constantFrom('application/json', 'application/json', 'text/plain'),
        kind: fc.constantFrom<Kind | 'none' | 'garbage'>(
          ...((operation.auth ?? []) as Kind[]),
          ...((operation.auth ?? []) as Kind[]),
          'none',
          'garbage',
        ),
      });
    });
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        let index = 0;
        const path = input.operation.url.replace(
          /:[A-Za-z]+/g,
          () => input.segments[index++] ?? '',
        );
        const search = input.query
          .map(([key, value]) => `${encodeText(key)}=${encodeText(value)}`)
          .join('&');
        const headers: Record<string, string> =
          input.kind === 'none'
            ? {}
            : input.kind === 'garbage'
              ? { 'x-api-key': 'sk_garbage', 'x-client-id': 'cli_garbage' }
              : { ...credentials.get(input.kind) };
        if (input.body !== undefined) headers['content-type'] = input.contentType;
        // The off-ramp's callbacks: signed, so the body itself is what is fuzzed.
        if (input.operation.url === '/v2/offramp/callbacks' && input.kind !== 'garbage') {
          headers['x-offramp-signature'] = signTimed(
            OFFRAMP_SECRET,
            Math.floor(t.clock.now().getTime() / 1000),
            input.body ?? '',
          );
        }
        const res = await t.app.inject({
          method: input.operation.method as 'GET',
          url: search ? `${path}?${search}` : path,
          headers,
          ...(input.body !== undefined && { payload: input.body }),
        });
        sent += 1;
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        const where = `${input.operation.method} ${path}?${search} ${input.body ?? ''} → ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, where).toBeLessThan(500);
        if (res.statusCode >= 400) {
          refused += 1;
          expect(res.headers['x-request-id'], where).toBeTypeOf('string');
          const body = res.json();
          expect(body.statusCode, where).toBe(res.statusCode);
          expect(body.message, where).toBeTypeOf('string');
          expect(body.error, where).toBeTypeOf('string');
          expect(body.code, where).toBeTypeOf('string');
          expect(await rowCounts(), `${where}: a refused request wrote rows`).toEqual(before);
        } else {
          before = await rowCounts();
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // biome-ignore lint/suspicious/noConsole: what the run reached, beside its seed.
    console.log(
      `fuzz answers: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ')}`,
    );
    expect(sent).toBeGreaterThanOrEqual(2_000);
    expect(refused / sent).toBeGreaterThan(0.7);
  }, 600_000);
});

interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/** `/v2/request/:requestId` → `/v2/request/{requestId}`, as @fastify/swagger writes it. */
function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z]+)/g, '{$1}');
}

/**
 * Percent-encoding that survives lone surrogates (encodeURIComponent throws on them): each is
 * sent as the three bytes a careless encoder would produce, which is not valid UTF-8.
 */
function encodeText(text: string): string {
  return text
    .split(/([\uD800-\uDFFF])/)
    .map((part) =>
      /^[\uD800-\uDFFF]$/.test(part)
        ? Buffer.from([
            0xed,
            0xa0 | ((part.charCodeAt(0) >> 6) & 0x0f),
            0x80 | (part.charCodeAt(0) & 0x3f),
          ])
            .toString('hex')
            .replace(/(..)/g, '%$1')
        : encodeURIComponent(part),
    )
    .join('');
}

describe('fuzzing a link’s access policy and the wallets that try to pay it', () => {
  let t: TestApp;
  let tenant: Tenant;
  let destinationId: string;
  const listed = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t.db, 'Screened');
    const target = resolveTarget(t.chains, {
      walletAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      chainId: 8453,
      tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    });
    destinationId = (await activateDestination(t.db, t.clock, tenant.accountId, target))
      .destinationId;
  });
  afterAll(() => t?.close());

  const links = async () =>
    (await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from secure_payments`))[0]
      ?.n;

  it('answers every accessPolicy with 201 or a 400 envelope, and writes no link on a 400', async () => {
    const address = fc.oneof(nasty, fc.constant(listed), fc.constant(listed.toUpperCase()));
    const policy = fc.record(
      {
        mode: fc.oneof(fc.constantFrom('inherit', 'off', 'kyt_all_wallets'), jsonish),
        screeningProvider: fc.oneof(fc.constantFrom('hypernative', 'merklescience', null), jsonish),
        hideUntilApproved: fc.oneof(fc.boolean(), jsonish),
        hidePayeeAddress: fc.constant(false),
        allowedPayerAddresses: fc.oneof(fc.array(address, { maxLength: 4 }), jsonish),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(policy, async (accessPolicy) => {
        const before = await links();
        const res = await t.app.inject({
          method: 'POST',
          url: '/v2/secure-payments',
          headers: { 'x-api-key': tenant.apiKey },
          payload: { requests: [{ destinationId, amount: '1' }], accessPolicy },
        });
        const where = `${JSON.stringify(accessPolicy)} → ${res.statusCode} ${res.body}`;
        expect([201, 400], where).toContain(res.statusCode);
        if (res.statusCode === 400) {
          expect(res.json().code, where).toBeTypeOf('string');
          expect(await links(), where).toBe(before);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  }, 300_000);

  it('answers any wallet on an allowlisted link with 400 or 403 and no calldata', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        requests: [{ destinationId, amount: '1' }],
        accessPolicy: { allowedPayerAddresses: [listed] },
      },
    });
    const { token } = created.json();
    await fc.assert(
      fc.asyncProperty(nasty, async (wallet) => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/v2/secure-payments/${token}/pay?wallet=${encodeText(wallet)}`,
          headers: { 'x-api-key': tenant.apiKey },
        });
        const where = `${JSON.stringify(wallet)} → ${res.statusCode} ${res.body}`;
        expect([400, 403], where).toContain(res.statusCode);
        if (res.statusCode === 403) expect(res.json().code, where).toBe('payer_not_allowed');
        expect(res.body, where).not.toContain('transactions');
      }),
      { seed: SEED, numRuns: 200 },
    );
  }, 300_000);
});
