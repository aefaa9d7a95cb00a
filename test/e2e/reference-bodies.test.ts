import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../app.ts';
import { pathShape, referenceUnion, rulingVersion, type Schema } from '../reference-versions.ts';

/**
 * Clients written for the reference API send every field its OpenAPI defines; a strict schema
 * that does not know one refuses their whole call. For every operation of the reference that
 * we serve, each request-body field and query parameter that each of its descriptions defines
 * (Request API 0.13.0 and 0.31.0, Auth API 0.14.0: clients of each keep working), at any
 * depth, must be in our schema (the OpenAPI we generate from the schemas that validate
 * requests) with a type that admits the reference's type and every value of its enum. Where
 * test/reference-versions.ts says a description of the request is unsound (0.31.0's
 * refresh-step body collapsed to a string), only the ruling one is compared.
 */

/**
 * Fields of the newer descriptions we do not take yet, each with the work that adds it: the
 * check expects exactly these, so one that starts being accepted must be taken off.
 */
const KNOWN_GAPS: Readonly<Record<string, string>> = {};

/**
 * Bodies a description types as a bare `string` although the operation takes an object (no
 * older description to fall back on): its own examples send the object, which is what is
 * compared elsewhere (route tests, conformance captures), so the `string` is not.
 */
const STRING_TYPED_BODIES: Readonly<Record<string, string>> = {
  'POST /v2/orchestrators/fee-configs (0.31.0)':
    '0.31.0 types the body as a string; its example sends {flow, feeBearer, bps, usdCap, evmRecipientAddress, clientId} (api-0.31-changes.md §5.2, §6)',
  'POST /v2/orchestrators/branding (0.31.0)':
    '0.31.0 types the body as a string; its example sends {logoPath, pageBackgroundColor, primaryActionColor, clientId} (api-0.31-changes.md §5.2, §6)',
};

/** The JSON types a schema admits, and the enum values it lists (null: any value). */
interface Admits {
  readonly types: Set<string>;
  readonly values: Set<unknown> | null;
  readonly schema: Schema;
}

function admits(schema: Schema, resolve: (schema: Schema) => Schema): Admits {
  const resolved = resolve(schema);
  const types = new Set<string>();
  let values: Set<unknown> | null = null;
  const options = (resolved.anyOf ?? resolved.oneOf) as Schema[] | undefined;
  if (options) {
    const inner = options.map((option) => admits(option, resolve));
    for (const option of inner) for (const type of option.types) types.add(type);
    // An option without an enum admits any value of its type.
    const open = inner.some((option) => option.values === null);
    return {
      types,
      values: open ? null : new Set(inner.flatMap((option) => [...(option.values ?? [])])),
      schema: resolved,
    };
  }
  const type = resolved.type;
  if (Array.isArray(type)) for (const t of type) types.add(String(t));
  else if (typeof type === 'string') types.add(type);
  if (resolved.const !== undefined) {
    types.add(resolved.const === null ? 'null' : typeof resolved.const);
    values = new Set([resolved.const]);
  }
  if (Array.isArray(resolved.enum)) values = new Set(resolved.enum);
  // An enum or const alone says its type through its values.
  if (types.size === 0 && values !== null)
    for (const value of values) types.add(value === null ? 'null' : typeof value);
  if (resolved.nullable === true) types.add('null');
  return { types, values, schema: resolved };
}

/**
 * Every field path of `theirs` missing from `ours` or admitted with a narrower type. Query
 * parameters travel as text whatever their declared type (`?limit=10`), so for them only
 * presence and enum values are compared (`textual`).
 */
function gaps(
  theirs: Schema,
  ours: Schema | undefined,
  path: string,
  resolve: (schema: Schema) => Schema,
  textual = false,
): string[] {
  if (ours === undefined) return [`${path}: missing`];
  const want = admits(theirs, resolve);
  const have = admits(ours, resolve);
  const found: string[] = [];
  for (const type of textual ? [] : want.types) {
    const ok =
      have.types.has(type) ||
      // A reference `number` field whose values are whole (counts, seconds) may be our integer.
      (type === 'number' && have.types.has('integer'));
    if (!ok) found.push(`${path}: ${type} not accepted (ours: ${[...have.types].join('|')})`);
  }
  if (want.values !== null && have.values !== null) {
    for (const value of want.values) {
      if (!have.values.has(value)) found.push(`${path}: ${JSON.stringify(value)} not accepted`);
    }
  }
  const theirProperties = (want.schema.properties ?? {}) as Record<string, Schema>;
  const ourObject = [have.schema, ...((have.schema.anyOf as Schema[] | undefined) ?? [])]
    .map(resolve)
    .find((s) => s.properties !== undefined);
  const ourProperties = (ourObject?.properties ?? {}) as Record<string, Schema>;
  for (const [name, property] of Object.entries(theirProperties)) {
    found.push(...gaps(property, ourProperties[name], `${path}.${name}`, resolve));
  }
  if (want.schema.items !== undefined) {
    const ourArray = [have.schema, ...((have.schema.anyOf as Schema[] | undefined) ?? [])]
      .map(resolve)
      .find((s) => s.items !== undefined);
    found.push(
      ...gaps(want.schema.items as Schema, ourArray?.items as Schema, `${path}[]`, resolve),
    );
  }
  return found;
}

describe('request bodies and query parameters of the reference API', () => {
  let t: TestApp;
  let document: {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: Schema }> };
          parameters?: { name: string; in: string; schema?: Schema }[];
        }
      >
    >;
    components?: { schemas?: Record<string, Schema> };
  };

  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  });
  afterAll(() => t.close());

  const resolve = (schema: Schema): Schema => {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const name = ref.split('/').at(-1) ?? '';
    const target = document.components?.schemas?.[name];
    if (!target) throw new Error(`unresolved ${ref}`);
    return resolve(target);
  };

  it('are all accepted by the operations we serve, with the reference’s types', () => {
    const ours = new Map<string, (typeof document.paths)[string][string]>();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        ours.set(`${method.toUpperCase()} ${pathShape(path)}`, operation);
      }
    }
    const problems: string[] = [];
    let compared = 0;
    for (const versioned of referenceUnion().values()) {
      const mine = ours.get(versioned.key);
      if (!mine) continue; // not served yet: the issues that build it add it
      const ruling = rulingVersion(versioned, 'request');
      const sound = versioned.rules.some((rule) => rule.parts.includes('request'))
        ? [ruling]
        : [...versioned.descriptions.keys()];
      for (const version of sound) {
        const description = versioned.descriptions.get(version);
        if (!description) continue;
        const { operation } = description;
        const name = `${versioned.method} ${description.path} (${version})`;
        const theirBody = operation.requestBody?.content['application/json']?.schema;
        if (theirBody && !(name in STRING_TYPED_BODIES)) {
          compared += 1;
          const myBody = mine.requestBody?.content['application/json']?.schema;
          problems.push(...gaps(theirBody, myBody, `${name} body`, resolve));
        }
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in !== 'query') continue;
          compared += 1;
          const myParameter = (mine.parameters ?? []).find(
            (p) => p.in === 'query' && p.name === parameter.name,
          );
          problems.push(
            ...gaps(
              parameter.schema ?? {},
              myParameter?.schema,
              `${name} query ${parameter.name}`,
              resolve,
              true,
            ),
          );
        }
      }
    }
    expect(problems).toEqual(Object.keys(KNOWN_GAPS));
    expect(compared).toBeGreaterThan(15);
  });

  it('notices a field that is missing or narrower (the check itself)', () => {
    const theirs = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'boolean' },
        c: { type: 'string', enum: ['x', 'y'] },
        d: { type: 'string', nullable: true },
      },
    };
    const ours = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        c: { anyOf: [{ const: 'x', type: 'string' }] },
        d: { type: 'string' },
      },
    };
    expect(gaps(theirs, ours, 'x', (s) => s)).toEqual([
      'x.b: missing',
      'x.c: "y" not accepted',
      'x.d: null not accepted (ours: string)',
    ]);
  });
});
