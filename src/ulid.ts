import { readRandom } from './crypto/random-pool.ts';

/**
 * ULIDs (48-bit millisecond time + 80 random bits, Crockford base32, 26 characters) whose
 * random part comes from the pool of cryptographic random bytes (crypto/random-pool.ts), not a
 * call per character. The random bits stay cryptographic, which matters: a secure payment link's
 * token is its capability.
 */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_BYTES = 10;
const MAX_TIME = 2 ** 48 - 1;

export function ulid(time: number = Date.now()): string {
  if (!Number.isInteger(time) || time < 0 || time > MAX_TIME) {
    throw new RangeError(`ULID time must be a millisecond count from 0 to 2^48-1 (got ${time})`);
  }
  let text = '';
  let rest = time;
  for (let i = 0; i < 10; i++) {
    text = ALPHABET[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  // 80 bits as 16 characters of 5 bits, taken from two 40-bit halves.
  return readRandom(RANDOM_BYTES, (pool, at) => {
    for (let half = 0; half < 2; half++) {
      let bits = pool.readUIntBE(at + half * 5, 5);
      let chunk = '';
      for (let i = 0; i < 8; i++) {
        chunk = ALPHABET[bits % 32] + chunk;
        bits = Math.floor(bits / 32);
      }
      text += chunk;
    }
    return text;
  });
}
