import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { typeErrors } from './typecheck.ts';

/**
 * That the type test (types.test.ts) catches what it is there for: the same file, compiled
 * against src/schema.ts as a server change would regenerate it, with one field the client
 * reads given another type, fails to compile; against the committed schema it compiles.
 */

const SCHEMA = readFileSync(new URL('../src/schema.ts', import.meta.url), 'utf8');

/** The schema with the first `field: from;` inside `component`'s block made `field: to;`. */
function retyped(component: string, field: string, from: string, to: string): string {
  const start = SCHEMA.indexOf(`        ${component}: {`);
  const at = SCHEMA.indexOf(`${field}: ${from};`, start);
  expect(start, component).toBeGreaterThan(0);
  expect(at, `${component}.${field}`).toBeGreaterThan(start);
  return `${SCHEMA.slice(0, at)}${field}: ${to};${SCHEMA.slice(at + field.length + from.length + 3)}`;
}

describe('the type test', () => {
  it('compiles against the committed schema', () => {
    expect(typeErrors({}, { withTests: ['types.test.ts'] })).toEqual([]);
  }, 120_000);

  it('fails to compile when a response field it reads changes type', () => {
    const schema = retyped('RequestStatus', 'hasBeenPaid', 'boolean', '"yes" | "no"');
    const errors = typeErrors({ 'src/schema.ts': schema }, { withTests: ['types.test.ts'] });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((error) => error.startsWith('test/types.test.ts'))).toBe(true);
  }, 120_000);
});
