import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.ts';

let t: TestApp;
let document: {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

interface Operation {
  description?: string;
  security?: Record<string, string[]>[];
  responses: Record<
    string,
    { $ref?: string; content?: Record<string, { schema: { $ref?: string } }> }
  >;
}

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  document = res.json();
});
afterAll(() => t.close());

function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '') || '/';
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3 document at version 0.31.0', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.version).toBe('0.31.0');
  });

  it('documents every route the app serves', () => {
    const served = t.routes.filter((r) => !r.hidden);
    expect(served.length).toBeGreaterThan(5);
    for (const route of served) {
      const operation = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.url}`).toBeDefined();
    }
    const documented = Object.values(document.paths).flatMap((p) => Object.keys(p)).length;
    expect(documented).toBe(served.length);
  });

  it('documents crypto-to-fiat: /pay’s payer and bank ids, and the off-ramp’s signed callback', () => {
    const pay = JSON.stringify(document.paths['/v2/request/{requestId}/pay']?.get);
    expect(pay).toContain('clientUserId');
    expect(pay).toContain('paymentDetailsId');
    const callback = document.paths['/v2/offramp/callbacks']?.post;
    expect(callback?.security).toEqual([]);
    expect(JSON.stringify(callback)).toContain('x-offramp-signature');
  });

  it('gives every operation its security and its error responses in the envelope', () => {
    for (const route of t.routes.filter((r) => !r.hidden)) {
      const name = `${route.method} ${route.url}`;
      const operation = document.paths[openApiPath(route.url)]?.[
        route.method.toLowerCase()
      ] as Operation;
      const errorStatuses = ['500', ...(route.auth ? ['401', '403'] : [])];
      for (const status of errorStatuses) {
        const schema = operation.responses[status]?.content?.['application/json']?.schema;
        expect(schema?.$ref, `${name} ${status}`).toBe('#/components/schemas/ErrorEnvelope');
      }
      if (route.auth) {
        expect(operation.description?.match(/Credentials:/g), name).toHaveLength(1);
        const alternatives = route.auth.reduce((n, kind) => n + (kind === 'session' ? 2 : 1), 0);
        // An optional credential adds the empty requirement: no credential at all.
        const none = route.authOptional ? 1 : 0;
        expect(operation.security, name).toHaveLength(alternatives + none);
        expect(
          operation.security?.some((r) => Object.keys(r).length === 0),
          name,
        ).toBe(none === 1);
        for (const requirement of operation.security ?? []) {
          for (const scheme of Object.keys(requirement)) {
            expect(document.components.securitySchemes[scheme], name).toBeDefined();
          }
        }
      } else {
        expect(operation.security, name).toEqual([]);
      }
    }
  });

  it('names the credential headers as security schemes', () => {
    expect(document.components.securitySchemes).toMatchObject({
      ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      ClientId: { type: 'apiKey', in: 'header', name: 'x-client-id' },
      OrchestratorKey: { type: 'apiKey', in: 'header', name: 'x-orchestrator-key' },
    });
    expect(document.components.schemas.ErrorEnvelope).toBeDefined();
  });
});

describe('GET /docs', () => {
  it('serves the interactive API reference from local assets', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).not.toMatch(/src="https?:\/\//);
    const script = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(script.statusCode).toBe(200);
  });
});

describe('fees in the OpenAPI, as 0.31.0 types them', () => {
  type Json = Record<string, unknown>;
  const at = (value: unknown, ...keys: string[]): Json => {
    let current = value;
    for (const key of keys) current = (current as Json | undefined)?.[key];
    expect(current, keys.join('.')).toBeDefined();
    return current as Json;
  };
  const admits = (schema: Json, value: unknown) =>
    new Ajv({ strict: false }).validate(schema, value);

  it('admit the protocol type and null amounts wherever fees appear', () => {
    const paymentFee = at(document.components.schemas, 'Payment', 'properties', 'fees', 'items');
    const statusFee = at(
      document.components.schemas,
      'RequestStatus',
      'properties',
      'fees',
      'items',
    );
    const routesFee = at(
      document.paths,
      '/v2/request/{requestId}/routes',
      'get',
      'responses',
      '200',
      'content',
      'application/json',
      'schema',
      'properties',
      'routes',
      'items',
      'properties',
      'feeBreakdown',
      'items',
    );
    const common = { amount: null, currency: 'USDC' };
    expect(
      admits(paymentFee, { ...common, type: 'protocol', stage: 'sending', network: 'base' }),
    ).toBe(true);
    expect(admits(statusFee, { ...common, type: 'protocol', provider: 'request-network' })).toBe(
      true,
    );
    expect(
      admits(routesFee, {
        ...common,
        type: 'protocol',
        stage: 'sending',
        amountInUSD: null,
        receiverAddress: '0x0',
        network: 'base',
      }),
    ).toBe(true);
    // And still nothing else.
    expect(admits(statusFee, { ...common, type: 'gas', provider: 'x' })).toBe(false);
  });
});
