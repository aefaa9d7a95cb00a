import type { FastifyInstance } from 'fastify';
import { boundedField, type FieldError, ValidationError } from '../base/errors.ts';

/**
 * Text no route can store or compare: the NUL character (Postgres text refuses it) and
 * unpaired UTF-16 surrogates (JSON may carry them as `\ud800` escapes, but no valid UTF-8 can,
 * so Postgres' jsonb refuses them). Refused with a 400 naming the field before validation runs,
 * wherever they hide: path segments, query values, body strings, and body keys. Every request
 * runs this over every string it sent: the engine's own scans, not a regular expression.
 */
const storable = (text: string): boolean => text.isWellFormed() && !text.includes('\u0000');

const UNSTORABLE_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/** Deeper JSON than this is not walked further (the body limit bounds the work anyway). */
const MAX_DEPTH = 64;

export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const errors: FieldError[] = [];
    findUnstorable(request.params, '', errors, 0);
    findUnstorable(request.query, '', errors, 0);
    findUnstorable(request.body, '', errors, 0);
    done(errors.length > 0 ? new ValidationError(errors.slice(0, 20)) : undefined);
  });
}

function findUnstorable(value: unknown, path: string, errors: FieldError[], depth: number): void {
  if (typeof value === 'string') {
    if (!storable(value))
      errors.push({ field: boundedField(path || 'body'), message: UNSTORABLE_MESSAGE });
    return;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      findUnstorable(item, `${path}[${index}]`, errors, depth + 1);
    });
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    // A key is reported by a safe rendering of its name: the key itself cannot be echoed.
    const badKey = !storable(key);
    const name = badKey ? JSON.stringify(key).slice(1, -1) : key;
    const field = path ? `${path}.${name}` : name;
    if (badKey) errors.push({ field: boundedField(field), message: UNSTORABLE_MESSAGE });
    findUnstorable(item, field, errors, depth + 1);
  }
}
