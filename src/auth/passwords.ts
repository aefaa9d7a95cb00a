import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords: argon2id with OWASP's minimum profile (19 MiB, 2 passes, 1 lane), 8-100
 * characters. Checking an unknown e-mail still runs one verification against a fixed hash, so
 * "no such user" and "wrong password" take the same time and give the same answer.
 */

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 100;
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

let decoy: Promise<string> | undefined;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** False for a missing hash too, after the same work. */
export async function checkPassword(password: string, stored: string | null): Promise<boolean> {
  decoy ??= hash('decoy password that never matches', OPTIONS);
  const target = stored ?? (await decoy);
  const ok = await verify(target, password).catch(() => false);
  return stored !== null && ok;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{1,63}$/;

/** Trimmed and lower-cased; null when it is not an address. */
export function normaliseEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}
