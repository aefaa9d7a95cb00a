import { afterEach } from 'vitest';
import { takeViolations } from './conformance.ts';

/**
 * Runs in every test file. A test fails if any answer it received from an operation of the
 * reference API broke that operation's response schema (test/conformance.ts).
 */
afterEach(() => {
  const violations = takeViolations();
  if (violations.length === 0) return;
  const lines = violations.map(
    (v) => `${v.operation} ${v.status}: ${v.errors.join('; ')}\n    body: ${v.body}`,
  );
  throw new Error(`answers that break the reference API's schema:\n  ${lines.join('\n  ')}`);
});
