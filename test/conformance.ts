import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

/**
 * The reference API's response schemas (request-api-0.13.0.structure.json: the real OpenAPI
 * 0.13.0 with its prose removed), checked against what our routes answer. Every test app
 * validates each answer of an operation the reference defines, for each status it gives a
 * schema for; a mismatch fails the test that received it (see test/setup.ts).
 */

const REFERENCE = new URL('./reference/request-api-0.13.0.structure.json', import.meta.url);

type Schema = Record<string, unknown>;

interface Operation {
  /** `GET /v2/request/{requestId}`. */
  readonly name: string;
  readonly method: string;
  /** The path with every parameter as `{}`, to compare with our routes' `:name` form. */
  readonly shape: string;
  readonly responses: ReadonlyMap<number, ValidateFunction | null>;
  /** Query parameters the operation defines, and which of them it requires. */
  readonly query: ReadonlySet<string>;
  readonly requiredQuery: readonly string[];
}

export interface Captured {
  readonly operation: string;
  readonly status: number;
  /** Null when the reference gives that status no schema. */
  readonly valid: boolean | null;
}

export interface Violation {
  readonly operation: string;
  readonly status: number;
  readonly errors: string[];
  readonly body: string;
}

/** `/v2/request/:requestId` and `/v2/request/{requestId}` both → `/v2/request/{}`. */
export function pathShape(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z0-9_]+/g, '{}');
}

let operations: Map<string, Operation> | undefined;

function load(): Map<string, Operation> {
  const document = JSON.parse(readFileSync(REFERENCE, 'utf8')) as {
    paths: Record<
      string,
      Record<
        string,
        {
          responses?: Record<string, Schema>;
          parameters?: { name: string; in: string; required?: boolean }[];
        }
      >
    >;
  };
  // OpenAPI 3.0's `nullable` becomes a null type (below); formats are checked; keywords Ajv
  // does not know (`example`) are not errors.
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its function is the default export's `default`.
  (formats as unknown as { default: (ajv: Ajv) => void }).default(ajv);
  const found = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const responses = new Map<number, ValidateFunction | null>();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const content = response.content as Record<string, { schema?: Schema }> | undefined;
        const schema = content?.['application/json']?.schema;
        responses.set(
          Number(status),
          schema ? ajv.compile(openApiToJsonSchema(schema) as Schema) : null,
        );
      }
      const upper = method.toUpperCase();
      const shape = pathShape(path);
      const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
      found.set(`${upper} ${shape}`, {
        name: `${upper} ${path}`,
        method: upper,
        shape,
        responses,
        query: new Set(query.map((p) => p.name)),
        requiredQuery: query.filter((p) => p.required).map((p) => p.name),
      });
    }
  }
  return found;
}

/**
 * OpenAPI 3.0's dialect as JSON Schema: `nullable: true` becomes a type that also admits null
 * (and an enum, the null value), boolean exclusive bounds become numbers. All the way down.
 */
function openApiToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openApiToJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).map(([k, v]) => [
              k,
              openApiToJsonSchema(v),
            ]),
          )
        : openApiToJsonSchema(value);
  }
  // OpenAPI 3.0 writes exclusive bounds as draft-04 booleans beside minimum/maximum.
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] === true && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else {
      delete out[flag];
    }
  }
  const nullable = out.nullable === true;
  delete out.nullable;
  if (!nullable) return out;
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  // A nullable oneOf/anyOf/allOf or untyped schema: null or what it describes.
  if (out.type === undefined && out.enum === undefined) return { anyOf: [{ type: 'null' }, out] };
  return out;
}

/** Every operation of the reference, by name (`GET /v2/request/{requestId}`). */
export function referenceOperations(): readonly {
  readonly name: string;
  readonly method: string;
  readonly shape: string;
  readonly statuses: readonly number[];
  readonly schemaStatuses: readonly number[];
}[] {
  operations ??= load();
  return [...operations.values()].map((op) => ({
    name: op.name,
    method: op.method,
    shape: op.shape,
    statuses: [...op.responses.keys()],
    schemaStatuses: [...op.responses].filter(([, v]) => v !== null).map(([status]) => status),
  }));
}

const captured: Captured[] = [];
let violations: Violation[] = [];

/**
 * Checks one answer. Non-JSON bodies of statuses with a schema are violations too. Returns the
 * capture, or null when the request was not one of a reference operation: no such route, or
 * query parameters the operation does not define (our additions, such as the list filters of
 * `GET /v2/secure-payments`) or without the ones it requires.
 */
export function checkAnswer(
  method: string,
  routeUrl: string,
  queryNames: readonly string[],
  status: number,
  body: string,
): Captured | null {
  try {
    return check(method, routeUrl, queryNames, status, body);
  } catch (error) {
    violations.push({ operation: `${method} ${routeUrl}`, status, errors: [String(error)], body });
    return null;
  }
}

function check(
  method: string,
  routeUrl: string,
  queryNames: readonly string[],
  status: number,
  body: string,
): Captured | null {
  operations ??= load();
  const operation = operations.get(`${method.toUpperCase()} ${pathShape(routeUrl)}`);
  if (!operation) return null;
  if (queryNames.some((name) => !operation.query.has(name))) return null;
  // Requests missing a required parameter are still the operation's: their 400 is checked.
  if (status < 400 && operation.requiredQuery.some((name) => !queryNames.includes(name))) {
    return null;
  }
  const validate = operation.responses.get(status);
  let valid: boolean | null = null;
  if (validate) {
    let parsed: unknown;
    let parseError: string | null = null;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      parseError = `not JSON: ${String(error)}`;
    }
    valid = parseError === null && validate(withoutSpecAdditions(operation.name, parsed)) === true;
    if (!valid) {
      violations.push({
        operation: operation.name,
        status,
        errors: parseError ? [parseError] : (validate.errors ?? []).map(describe),
        body: body.slice(0, 2_000),
      });
    }
  }
  const capture = { operation: operation.name, status, valid };
  captured.push(capture);
  return capture;
}

/**
 * Members the spec adds to an answer whose reference schema forbids any beyond its own. Only
 * where the reference's own examples and guides disagree with its schema (api-facts §4.3: the
 * batch payout examples answer `batchPaymentTransaction`, the schema does not list it); each
 * addition is removed before the check, so everything else is still held to the schema.
 */
const SPEC_ADDITIONS: Readonly<Record<string, readonly string[]>> = {
  'POST /v2/payouts/batch': ['batchPaymentTransaction', 'metadata', 'requestIds'],
};

/**
 * Enum values the spec adds where the reference's schema lists fewer: Variant C's
 * `executionKind` names only the EVM kinds, while the spec and the reference's own
 * `requestedExecutionKind` have `tron_batch`, which a Tron multicall answers. Checked as the
 * EVM same-chain kind, so the rest of the answer is still held to the schema.
 */
const SPEC_ENUM_ADDITIONS: Readonly<Record<string, Readonly<Record<string, [string, string]>>>> = {
  'GET /v2/secure-payments/{token}/pay': { executionKind: ['tron_batch', 'evm_same_chain'] },
};

function withoutSpecAdditions(operation: string, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const added = SPEC_ADDITIONS[operation] ?? [];
  const enums = SPEC_ENUM_ADDITIONS[operation] ?? {};
  return Object.fromEntries(
    Object.entries(body)
      .filter(([key]) => !added.includes(key))
      .map(([key, value]) => {
        const [spec, reference] = enums[key] ?? [];
        return [key, spec !== undefined && value === spec ? reference : value];
      }),
  );
}

function describe(error: ErrorObject): string {
  return `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`;
}

/** What this test file's apps answered so far, for coverage checks. */
export function capturedAnswers(): readonly Captured[] {
  return captured;
}

/** The violations since the last call, cleared. */
export function takeViolations(): Violation[] {
  const taken = violations;
  violations = [];
  return taken;
}
