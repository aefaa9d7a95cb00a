import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import {
  pathShape,
  referenceUnion,
  rulingVersion,
  type Schema,
  type Version,
  type VersionedOperation,
} from './reference-versions.ts';

/**
 * The reference API's response schemas, checked against what our routes answer. Every test app
 * validates each answer of an operation the reference defines, for each status it gives a
 * schema for, against the description that rules the operation (test/reference-versions.ts:
 * Request API 0.31.0, Auth API 0.14.0 for its paths, 0.13.0 for what 0.31.0 removed or
 * describes unsoundly), and against 0.13.0's as well where it describes the same answer, so
 * its clients keep working; a mismatch fails the test that received it (see test/setup.ts).
 */

type Validators = Map<number, ValidateFunction | null>;

interface Operation {
  /** `GET /v2/request/{requestId}`, as the ruling version writes it. */
  readonly name: string;
  readonly versioned: VersionedOperation;
  /** By version: each status it describes, with the schema's validator (null: no schema). */
  readonly responses: ReadonlyMap<Version, Validators>;
  /** Query parameters any version defines, and which the ruling one requires. */
  readonly query: ReadonlySet<string>;
  readonly requiredQuery: readonly string[];
}

export interface Captured {
  readonly operation: string;
  readonly status: number;
  /** The description the answer was checked against. */
  readonly version: Version;
  /** Null when the reference gives that status no schema. */
  readonly valid: boolean | null;
}

export interface Violation {
  readonly operation: string;
  readonly status: number;
  readonly errors: string[];
  readonly body: string;
}

let operations: Map<string, Operation> | undefined;

/**
 * Success schemas that describe one item of a list the operation answers: 0.31.0 gives
 * `GET /v2/transaction-history` the fields of one history item and no envelope, although the
 * operation pages (`limit`, `offset`; api-0.31-changes.md §6). We answer a JSON array of such
 * items, each held to the item schema.
 */
const ITEM_SCHEMAS: ReadonlySet<string> = new Set(['GET /v2/transaction-history 200']);

/**
 * Members a schema requires that an answer may lack, where the reference cannot describe what
 * is true: 0.31.0's commerce status repeats the latest event's `type` and `timestamp`, and its
 * `type` has no value for a payment no event has moved yet, whose answer says so in `status`
 * alone, as 0.31.0's example (the whole payment, with no `type`) does (docs/guides/commerce.md).
 */
const MAY_LACK: ReadonlyMap<string, readonly string[]> = new Map([
  ['GET /v2/commerce-payments/{requestId}/status 200', ['type', 'timestamp']],
]);

function withoutRequired(schema: Schema, names: readonly string[] | undefined): Schema {
  const required = schema.required;
  if (!names || !Array.isArray(required)) return schema;
  return { ...schema, required: required.filter((name) => !names.includes(name)) };
}

function load(): Map<string, Operation> {
  // OpenAPI 3.0's `nullable` becomes a null type (below); formats are checked; keywords Ajv
  // does not know (`example`) are not errors.
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its function is the default export's `default`.
  (formats as unknown as { default: (ajv: Ajv) => void }).default(ajv);
  const found = new Map<string, Operation>();
  for (const [key, versioned] of referenceUnion()) {
    const responses = new Map<Version, Validators>();
    const query = new Set<string>(versioned.undeclaredQuery);
    for (const [version, { operation }] of versioned.descriptions) {
      const validators: Validators = new Map();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const content = response.content as Record<string, { schema?: Schema }> | undefined;
        const schema = content?.['application/json']?.schema;
        const key = `${versioned.method} ${versioned.descriptions.get(version)?.path} ${status}`;
        const converted = schema
          ? withoutRequired(openApiToJsonSchema(schema) as Schema, MAY_LACK.get(key))
          : null;
        const listed = ITEM_SCHEMAS.has(key);
        validators.set(
          Number(status),
          converted ? ajv.compile(listed ? { type: 'array', items: converted } : converted) : null,
        );
      }
      responses.set(version, validators);
      for (const p of operation.parameters ?? []) if (p.in === 'query') query.add(p.name);
    }
    const ruling = versioned.descriptions.get(rulingVersion(versioned, 'request'));
    found.set(key, {
      name: `${versioned.method} ${versioned.descriptions.get(versioned.primary)?.path ?? versioned.shape}`,
      versioned,
      responses,
      query,
      requiredQuery: (ruling?.operation.parameters ?? [])
        .filter((p) => p.in === 'query' && p.required)
        .map((p) => p.name),
    });
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

/**
 * Every operation of the reference (0.13.0, 0.31.0 and Auth 0.14.0 together), by name
 * (`GET /v2/request/{requestId}`), with the statuses any of its descriptions documents.
 */
export function referenceOperations(): readonly {
  readonly name: string;
  readonly method: string;
  readonly shape: string;
  readonly versions: readonly Version[];
  readonly statuses: readonly number[];
}[] {
  operations ??= load();
  return [...operations.values()].map((op) => ({
    name: op.name,
    method: op.versioned.method,
    shape: op.versioned.shape,
    versions: [...op.responses.keys()],
    statuses: [...new Set([...op.responses.values()].flatMap((v) => [...v.keys()]))],
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
  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    parseError = `not JSON: ${String(error)}`;
  }
  // The ruling version's schema for the status; when it documents no such status (0.31.0
  // dropped the 401 of the link creations), the next version that does.
  const ruling = rulingVersion(operation.versioned, 'answers', parsed);
  const order = [ruling, ...[...operation.responses.keys()].filter((v) => v !== ruling)];
  const version = order.find((v) => operation.responses.get(v)?.has(status) === true) ?? ruling;
  const validate = operation.responses.get(version)?.get(status);
  let valid: boolean | null = null;
  if (validate) {
    valid =
      parseError === null &&
      validate(withoutSpecAdditions(version, operation.name, parsed)) === true;
    if (!valid) {
      violations.push({
        operation: `${operation.name} (${version})`,
        status,
        errors: parseError ? [parseError] : (validate.errors ?? []).map(describe),
        body: body.slice(0, 2_000),
      });
    }
  }
  // Clients of 0.13.0 keep working: where it describes the same answer, it holds as well.
  const older = version === '0.13.0' ? undefined : operation.responses.get('0.13.0')?.get(status);
  if (
    older &&
    parseError === null &&
    !older(withoutSpecAdditions('0.13.0', operation.name, parsed))
  ) {
    violations.push({
      operation: `${operation.name} (0.13.0 too)`,
      status,
      errors: (older.errors ?? []).map(describe),
      body: body.slice(0, 2_000),
    });
  }
  const capture = { operation: operation.name, status, version, valid };
  captured.push(capture);
  return capture;
}

/**
 * Members an answer carries beyond what a version's schema allows, where that schema forbids
 * any others: the names the other version reads for the same thing, so clients of both find
 * it. Each is removed before that version's check, so everything else is still held to it.
 */
const SPEC_ADDITIONS: readonly {
  readonly version: Version;
  readonly operation: string;
  readonly members: readonly string[];
  readonly reason: string;
}[] = [
  {
    version: '0.31.0',
    operation: 'POST /v2/payouts/batch',
    members: ['ERC20BatchPaymentTransaction', 'ETHBatchPaymentTransaction', 'requestIds'],
    reason:
      "0.13.0's names of the batch transaction (0.31.0 calls it batchPaymentTransaction) and the spec's list of the requests' ids",
  },
  {
    version: '0.13.0',
    operation: 'POST /v2/payouts/batch',
    members: ['batchPaymentTransaction', 'metadata', 'requests', 'requestIds'],
    reason: "0.31.0's names, which 0.13.0's schema does not list, and the spec's requestIds",
  },
];

/**
 * Enum values the spec adds where the reference's schema lists fewer: Variant C's
 * `executionKind` (0.13.0's multicall branch) names only the EVM kinds, while the spec and
 * the reference's own `requestedExecutionKind` have `tron_batch`, which a Tron multicall
 * answers. Checked as the EVM same-chain kind, so the rest of the answer is still held to the
 * schema.
 */
const SPEC_ENUM_ADDITIONS: readonly {
  readonly version: Version;
  readonly operation: string;
  readonly values: Readonly<Record<string, readonly [string, string]>>;
}[] = [
  {
    version: '0.13.0',
    operation: 'GET /v2/secure-payments/{token}/pay',
    values: { executionKind: ['tron_batch', 'evm_same_chain'] },
  },
];

function withoutSpecAdditions(version: Version, operation: string, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const applies = (entry: { version: Version; operation: string }) =>
    entry.version === version && entry.operation === operation;
  const added = SPEC_ADDITIONS.filter(applies).flatMap((entry) => entry.members);
  const enums = SPEC_ENUM_ADDITIONS.find(applies)?.values ?? {};
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
