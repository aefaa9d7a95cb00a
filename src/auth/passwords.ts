import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords: argon2id with OWASP's minimum profile (19 MiB, 2 passes, 1 lane), 8-100
 * characters. Checking an unknown e-mail still runs one verification against a decoy hash
 * made with the same profile, so "no such user" and "wrong password" take the same time and
 * give the same answer.
 */

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 100;
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const DECOY_PASSWORD = 'decoy password that never matches';

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/**
 * The hash an unknown e-mail is checked against. Make it once, before serving: made on the
 * first unknown e-mail instead, that login would cost a hash more than a wrong password.
 */
export function hashDecoy(): Promise<string> {
  return hash(DECOY_PASSWORD, OPTIONS);
}

/** False for a missing hash too, after the same work (one verification against `decoy`). */
export async function checkPassword(
  password: string,
  stored: string | null,
  decoy: string,
): Promise<boolean> {
  const ok = await verify(stored ?? decoy, password).catch(() => false);
  return stored !== null && ok;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/;

/** Trimmed and lower-cased; null when it is not an address. */
export function normaliseEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}
