import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Config } from '../config/config.ts';
import { ErrorEnvelopeRef, ErrorEnvelopeSchema } from '../http/envelope.ts';
import { CREDENTIAL_HEADERS, type CredentialKind } from '../http/principal.ts';
import { IDEMPOTENCY_PARAMETER } from '../idempotency/keys.ts';

/**
 * The version of the reference Request API whose wire format we serve: its answers, with the
 * Auth API 0.14.0's on the account routes; the operations 0.13.0 had and 0.31.0 dropped are
 * still served for the clients written against it.
 */
const API_VERSION = '0.31.0';

const SECURITY_SCHEMES = {
  ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
  ClientId: { type: 'apiKey', in: 'header', name: 'x-client-id' },
  OrchestratorKey: { type: 'apiKey', in: 'header', name: 'x-orchestrator-key' },
  SessionCookie: { type: 'apiKey', in: 'cookie', name: 'session_token' },
  SessionBearer: { type: 'http', scheme: 'bearer' },
} as const;

/** Each credential is one or more alternative security requirements. */
const SECURITY_BY_CREDENTIAL: Readonly<
  Record<CredentialKind, readonly Record<string, string[]>[]>
> = {
  apiKey: [{ ApiKey: [] }],
  clientId: [{ ClientId: [] }],
  orchestratorKey: [{ OrchestratorKey: [] }],
  orchestratorPair: [{ OrchestratorKey: [], ClientId: [] }],
  session: [{ SessionCookie: [] }, { SessionBearer: [] }],
};

/**
 * The OpenAPI document is generated from the same route schemas that validate requests. Each
 * route gets its security requirement and its error responses here, from its `config.auth` and
 * the parts it validates, so no route can forget them.
 */
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  app.addSchema(ErrorEnvelopeSchema);
  app.addHook('onRoute', documentRoute);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'payreq',
        version: API_VERSION,
        description:
          'Payment requests, secure payment links and payouts on EVM networks and Tron. Errors use one envelope: {statusCode, message, error}.',
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: SECURITY_SCHEMES,
        parameters: { IdempotencyKey: IDEMPOTENCY_PARAMETER },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      markOptionalBodies(document.openapiObject.paths);
      declareIdempotencyKeys(document.openapiObject.paths);
      return document.openapiObject;
    },
  });

  app.get('/openapi.json', { config: { admission: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
}

/** Fastify adds a HEAD twin for each GET that shares its schema object: document it once. */
const documented = new WeakSet<object>();

function documentRoute(route: RouteOptions): void {
  route.schema ??= {};
  const schema = route.schema as Record<string, unknown>;
  if (schema.hide === true || documented.has(schema)) return;
  documented.add(schema);
  const auth = route.config?.auth;
  schema.response ??= {};
  const response = schema.response as Record<string, unknown>;
  const errors: Record<number, string> = { 500: 'Unexpected failure; safe to retry with backoff' };
  if (schema.body || schema.querystring || schema.params) errors[400] = 'Invalid input';
  if (auth !== undefined) {
    errors[401] = 'Missing, invalid or revoked credentials';
    errors[403] = 'Valid credentials that may not do this';
    const optional = route.config?.authOptional === true;
    // An empty requirement is OpenAPI's "or none at all".
    schema.security = [
      ...auth.flatMap((kind) => SECURITY_BY_CREDENTIAL[kind]),
      ...(optional ? [{}] : []),
    ];
    const headers = auth.map((kind) => CREDENTIAL_HEADERS[kind]).join(' or ');
    const said = optional ? `${headers}, or none (then limited per IP)` : headers;
    schema.description = [schema.description, `Credentials: ${said}.`].filter(Boolean).join('\n\n');
    if (takesIdempotencyKey(route.method)) {
      errors[409] = 'The Idempotency-Key’s first request is still running; retry after Retry-After';
      errors[422] = 'The Idempotency-Key was used with another request';
    }
  } else {
    schema.security = [];
  }
  if (schema.params) errors[404] = 'Not found';
  for (const [status, description] of Object.entries(errors)) {
    response[status] ??= { description, ...ErrorEnvelopeRef };
  }
}

/** POST and PATCH of an authenticated caller take `Idempotency-Key` (src/idempotency/). */
const IDEMPOTENT_METHODS = ['post', 'patch'];

function takesIdempotencyKey(method: RouteOptions['method']): boolean {
  const methods = Array.isArray(method) ? method : [method];
  return methods.some((one) => IDEMPOTENT_METHODS.includes(one.toLowerCase()));
}

/** The header on every operation that takes it: a POST or PATCH that asks for credentials. */
function declareIdempotencyKeys(paths: unknown): void {
  for (const item of Object.values(asRecord(paths))) {
    for (const method of IDEMPOTENT_METHODS) {
      const operation = asRecord(asRecord(item)[method]);
      const security = operation.security;
      if (!Array.isArray(security) || security.length === 0) continue;
      const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
      operation.parameters = [...parameters, { $ref: '#/components/parameters/IdempotencyKey' }];
    }
  }
}

/**
 * fastify-swagger marks every request body required; a body whose schema admits null may be
 * left out (Fastify validates a missing body as null: `PUT /v1/webhook/{id}`, the toggle).
 */
function markOptionalBodies(paths: unknown): void {
  for (const item of Object.values(asRecord(paths))) {
    for (const operation of Object.values(asRecord(item))) {
      const body = asRecord(asRecord(operation).requestBody);
      const schema = asRecord(asRecord(asRecord(body.content)['application/json']).schema);
      const options = Array.isArray(schema.anyOf) ? schema.anyOf : [schema];
      const admitsNull = options.some((option) => {
        const type = asRecord(option).type;
        return type === 'null' || (Array.isArray(type) && type.includes('null'));
      });
      if (admitsNull) body.required = false;
    }
  }
}

/** The object `value` is, or an empty one (for walking a document's optional parts). */
function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
