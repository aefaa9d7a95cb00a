import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Request validation with two Ajv instances. Query strings, params and headers arrive as text
 * and are coerced to the schema's types (`?limit=5` is the integer 5). JSON bodies are not
 * coerced: `"amount": 1.1` must fail where a string is wanted, or a float would reach a money
 * path rounded. Both are strict: unknown fields are errors, never removed silently, and every
 * error is reported.
 */
const COMMON = { removeAdditional: false, allErrors: true, useDefaults: true } as const;

type BuildValidator = (
  externalSchemas: unknown,
  options: { customOptions?: object } | undefined,
) => (route: { httpPart?: string }) => unknown;

interface Validate {
  (data: unknown): unknown;
  errors?: unknown;
}

export function validationOptions(): Pick<FastifyServerOptions, 'schemaController'> {
  const build = AjvCompiler() as unknown as BuildValidator;
  const buildValidator: BuildValidator = (externalSchemas, ajvOptions) => {
    const withCoercion = (coerceTypes: 'array' | false) => ({
      ...ajvOptions,
      customOptions: { ...ajvOptions?.customOptions, ...COMMON, coerceTypes },
    });
    let coercing: ReturnType<BuildValidator> | undefined;
    let exact: ReturnType<BuildValidator> | undefined;
    const compile = (route: { httpPart?: string }) => {
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
      const lazy: Validate = (data) => {
        validate ??= compile(route);
        const valid = validate(data);
        lazy.errors = validate.errors;
        return valid;
      };
      return lazy;
    };
  };
  return {
    schemaController: {
      compilersFactory: {
        buildValidator: buildValidator as unknown as ValidatorFactory,
        buildSerializer: lazySerializers,
      },
    },
  };
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
