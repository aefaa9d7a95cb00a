import { randomBytes } from 'node:crypto';

/** Shapes of identifiers and hosts that several modules check. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical 8-4-4-4-12 hex form: what database ids look like. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Host names of this machine, as `URL.hostname` writes them. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A pay token: 256 random bits as 64 hex digits, a payer's capability on the pay page (a
 * recurring payout's, a commerce payment's).
 */
export function newPayToken(): string {
  return randomBytes(32).toString('hex');
}

const PAY_TOKEN = /^[0-9a-f]{64}$/;

/** Whether `value` has a pay token's shape (checked before any lookup). */
export function isPayToken(value: string): boolean {
  return PAY_TOKEN.test(value);
}
