import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
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

export function validationOptions(): Pick<FastifyServerOptions, 'schemaController'> {
  const build = AjvCompiler() as unknown as BuildValidator;
  const buildValidator: BuildValidator = (externalSchemas, ajvOptions) => {
    const withCoercion = (coerceTypes: 'array' | false) => ({
      ...ajvOptions,
      customOptions: { ...ajvOptions?.customOptions, ...COMMON, coerceTypes },
    });
    const coercing = build(externalSchemas, withCoercion('array'));
    const exact = build(externalSchemas, withCoercion(false));
    return (route) => (route.httpPart === 'body' ? exact(route) : coercing(route));
  };
  return {
    schemaController: {
      compilersFactory: { buildValidator: buildValidator as unknown as ValidatorFactory },
    },
  };
}
