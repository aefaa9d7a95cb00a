import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { ValidationError } from '../base/errors.ts';
import { type SchemaIssue, schemaFieldErrors } from './schema-errors.ts';

/**
 * Request validation with two Ajv instances. Query strings, params and headers arrive as text
 * and are coerced to the schema's types (`?limit=5` is the integer 5). JSON bodies are not
 * coerced: `"amount": 1.1` must fail where a string is wanted, or a float would reach a money
 * path rounded. Every error is reported.
 *
 * Unknown query parameters and body fields are handled as the reference API handles them: it
 * ignores extra query parameters, and forbids extra body fields only where its schema says so
 * (`additionalProperties: false`, on `POST /v2/secure-payments/multicall-payouts` alone). So
 * they are removed before the handler sees them, except in the bodies of `STRICT_BODIES`, where
 * they answer 400 `is not allowed`. (docs/architecture.md, "Unknown input".)
 */
const COMMON = { removeAdditional: false, allErrors: true, useDefaults: true } as const;

/** The routes whose body schema the reference marks `additionalProperties: false`. */
const STRICT_BODIES: ReadonlySet<string> = new Set(['POST /v2/secure-payments/multicall-payouts']);

interface RouteOfSchema {
  readonly schema?: unknown;
  readonly httpPart?: string;
  readonly method?: string;
  readonly url?: string;
}

type BuildValidator = (
  externalSchemas: unknown,
  options: { customOptions?: object; plugins?: readonly unknown[] } | undefined,
) => (route: RouteOfSchema) => unknown;

interface Validate {
  (data: unknown): unknown;
  errors?: unknown;
}

/** Whether unknown fields of this part of this route are dropped rather than refused. */
function dropsUnknown(route: RouteOfSchema): boolean {
  if (route.httpPart === 'querystring') return true;
  if (route.httpPart !== 'body') return false;
  return !STRICT_BODIES.has(`${route.method ?? ''} ${route.url ?? ''}`);
}

interface AjvIssue {
  readonly keyword?: string;
  readonly instancePath?: string;
  readonly schemaPath?: string;
  readonly params?: { readonly additionalProperty?: unknown };
}

/**
 * Removes from `data` the fields the errors call unknown; whether it removed any. Fields that
 * are unknown only to some branch of a union (`anyOf`, `oneOf`) stay: which branch the caller
 * meant is not known, so they are still reported.
 */
function dropUnknown(data: unknown, errors: unknown, schema: unknown): boolean {
  if (!Array.isArray(errors)) return false;
  let dropped = false;
  for (const issue of errors as AjvIssue[]) {
    const name = issue.params?.additionalProperty;
    if (issue.keyword !== 'additionalProperties' || typeof name !== 'string') continue;
    if (/\/(anyOf|oneOf)\//.test(issue.schemaPath ?? '')) continue;
    if (isMapOfPatterns(schema, issue.schemaPath ?? '')) continue;
    const owner = at(data, issue.instancePath ?? '');
    if (owner !== null && Object.hasOwn(owner, name)) {
      delete owner[name];
      dropped = true;
    }
  }
  return dropped;
}

/**
 * Whether the object that refused a property is a map whose names follow a pattern (a
 * `Type.Record`): a name outside it is a malformed key, reported, not an unknown field.
 */
function isMapOfPatterns(schema: unknown, schemaPath: string): boolean {
  const owner = at(schema, schemaPath.replace(/^#/, '').replace(/\/additionalProperties$/, ''));
  return owner !== null && 'patternProperties' in owner;
}

/** The object at a JSON pointer (Ajv's `instancePath`, or a schema path), or null. */
function at(data: unknown, pointer: string): Record<string, unknown> | null {
  let node = data;
  for (const raw of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return null;
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === 'object' && !Array.isArray(node)
    ? (node as Record<string, unknown>)
    : null;
}

/**
 * A validator factory as Fastify takes it, with the two Ajv instances and the unknown-field rule
 * above; one per app (Ajv instances are pooled inside it).
 */
function validatorFactory(): BuildValidator {
  const build = AjvCompiler() as unknown as BuildValidator;
  return (externalSchemas, ajvOptions) => {
    const withCoercion = (coerceTypes: 'array' | false) => ({
      ...ajvOptions,
      customOptions: { ...ajvOptions?.customOptions, ...COMMON, coerceTypes },
    });
    let coercing: ReturnType<BuildValidator> | undefined;
    let exact: ReturnType<BuildValidator> | undefined;
    const compile = (route: RouteOfSchema) => {
      if (route.httpPart === 'body') {
        exact ??= build(externalSchemas, withCoercion(false));
        return exact(route) as Validate;
      }
      coercing ??= build(externalSchemas, withCoercion('array'));
      return coercing(route) as Validate;
    };
    // Each validator compiled on its route's first request, like the serializers below: Ajv
    // compiling every route's schemas was the largest part of a start. A schema Ajv cannot
    // compile then fails that route's first request (the route tests and the fuzz test send one
    // to every route).
    return (route) => {
      let validate: Validate | undefined;
      const lenient = dropsUnknown(route);
      const lazy: Validate = (data) => {
        validate ??= compile(route);
        let valid = validate(data);
        // Checked strictly first, so a valid request costs one pass; unknown fields are then
        // dropped and the rest checked again (a field inside a dropped one goes with it).
        for (let round = 0; !valid && lenient && round < 8; round++) {
          if (!dropUnknown(data, validate.errors, route.schema)) break;
          valid = validate(data);
        }
        lazy.errors = validate.errors;
        return valid;
      };
      return lazy;
    };
  };
}

export function validationOptions(): Pick<FastifyServerOptions, 'schemaController'> {
  return {
    schemaController: {
      compilersFactory: {
        buildValidator: validatorFactory() as unknown as ValidatorFactory,
        buildSerializer: lazySerializers,
      },
    },
  };
}

/**
 * A body checked outside HTTP (the CLI) exactly as its route checks it: the same Ajv and
 * options (Fastify's defaults: no custom options, no plugins), the same unknown-field rule,
 * and on failure the same `ValidationError` the route's 400 carries.
 */
export function parseBody<T extends TSchema>(
  route: { readonly method: string; readonly url: string; readonly schema: T },
  body: unknown,
): Static<T> {
  const validate = validatorFactory()({}, { customOptions: {}, plugins: [] })({
    ...route,
    httpPart: 'body',
  }) as Validate;
  if (validate(body)) {
    // Ajv has just held the body to the schema.
    return body as Static<T>;
  }
  const issues = Array.isArray(validate.errors) ? (validate.errors as SchemaIssue[]) : [];
  throw new ValidationError(schemaFieldErrors(issues, 'body'));
}

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serialize = (data: unknown) => string;
type RouteSchema = Parameters<ReturnType<SerializerFactory>>[0];
type JsonSchema = Record<string, unknown>;

/**
 * Fastify's response serializers, each compiled when its route first answers with that status
 * rather than all at start: compiling every route's schemas took ~0.6 s of each start, for
 * answers most processes never give.
 */
const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const build = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: Serialize | undefined;
    return (data: unknown) => {
      serialize ??=
        byDiscriminator(route, externalSchemas as Record<string, JsonSchema>, build) ??
        (build(route) as Serialize);
      return serialize(data);
    };
  };
};

/** Stands for a property an answer (or a branch) does not have. */
const ABSENT = Symbol('absent');

/**
 * A union answer whose branches each fix one required property to a constant (`paymentType:
 * 'single'` | `'multicall'`), one branch at most going without it (the reference's batch
 * calldata has no `paymentType`), is serialised by its branch's serializer, picked by that
 * property. The union's own serializer validates the answer against each branch with Ajv to
 * pick one, which cost more than writing the answer. An answer whose property names no branch
 * goes to the union's serializer, as before. Null when the schema is no such union.
 */
function byDiscriminator(
  route: RouteSchema,
  external: Record<string, JsonSchema>,
  build: (route: RouteSchema) => unknown,
): Serialize | null {
  const branches = (route.schema as JsonSchema | undefined)?.anyOf;
  if (!Array.isArray(branches) || branches.length < 2) return null;
  const resolved = branches.map((branch: JsonSchema) =>
    typeof branch.$ref === 'string' ? external[branch.$ref] : branch,
  );
  const propertiesOf = (schema: JsonSchema | undefined) =>
    (schema?.properties ?? {}) as Record<string, JsonSchema>;
  /** The branch's constant for `key`, `ABSENT` if it has no such property, else null. */
  const constOf = (schema: JsonSchema | undefined, key: string): unknown => {
    const property = propertiesOf(schema)[key];
    if (property === undefined) return ABSENT;
    const required = Array.isArray(schema?.required) && schema.required.includes(key);
    return required && typeof property.const === 'string' ? property.const : null;
  };
  const candidates = new Set(resolved.flatMap((schema) => Object.keys(propertiesOf(schema))));
  const key = [...candidates].find((candidate) => {
    const values = resolved.map((schema) => constOf(schema, candidate));
    return (
      values.every((v) => v !== null) &&
      values.filter((v) => v === ABSENT).length <= 1 &&
      new Set(values).size === values.length
    );
  });
  if (key === undefined) return null;
  const byValue = new Map<unknown, Serialize>();
  branches.forEach((branch: JsonSchema, index) => {
    // A $ref stays a $ref: the compiler drops an inline schema's $id from the shared ones.
    byValue.set(constOf(resolved[index], key), build({ ...route, schema: branch }) as Serialize);
  });
  let whole: Serialize | undefined;
  return (data) => {
    const value =
      data !== null && typeof data === 'object' && key in data ? (data as JsonSchema)[key] : ABSENT;
    const serialize = byValue.get(value);
    if (serialize) return serialize(data);
    whole ??= build(route) as Serialize;
    return whole(data);
  };
}
