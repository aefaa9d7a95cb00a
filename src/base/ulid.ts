import { readRandom } from './random-pool.ts';

/**
 * ULIDs (48-bit millisecond time + 80 random bits, Crockford base32, 26 characters) whose
 * random part comes from the pool of cryptographic random bytes (random-pool.ts), not a
 * call per character. The random bits stay cryptographic, which matters: a secure payment link's
 * token is its capability. Every request gets one (its `x-request-id`), so the encoding works on
 * bytes, and the time part is written once per millisecond.
 */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODES = Array.from(ALPHABET, (char) => char.charCodeAt(0));
const RANDOM_BYTES = 10;
const MAX_TIME = 2 ** 48 - 1;

let lastTime = -1;
let lastTimePart = '';

function timePart(time: number): string {
  if (time === lastTime) return lastTimePart;
  let text = '';
  let rest = time;
  for (let i = 0; i < 10; i++) {
    text = ALPHABET[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  lastTime = time;
  lastTimePart = text;
  return text;
}

const randomCodes: number[] = new Array(16).fill(0);

/** 10 bytes from `at` as 16 base32 characters, 5 bits each, most significant first. */
export function encodeRandom(bytes: Uint8Array, at: number): string {
  for (let half = 0; half < 2; half++) {
    const o = at + half * 5;
    const b0 = bytes[o] as number;
    const b1 = bytes[o + 1] as number;
    const b2 = bytes[o + 2] as number;
    const b3 = bytes[o + 3] as number;
    const b4 = bytes[o + 4] as number;
    const c = half * 8;
    randomCodes[c] = CODES[b0 >> 3] as number;
    randomCodes[c + 1] = CODES[((b0 & 7) << 2) | (b1 >> 6)] as number;
    randomCodes[c + 2] = CODES[(b1 >> 1) & 31] as number;
    randomCodes[c + 3] = CODES[((b1 & 1) << 4) | (b2 >> 4)] as number;
    randomCodes[c + 4] = CODES[((b2 & 15) << 1) | (b3 >> 7)] as number;
    randomCodes[c + 5] = CODES[(b3 >> 2) & 31] as number;
    randomCodes[c + 6] = CODES[((b3 & 3) << 3) | (b4 >> 5)] as number;
    randomCodes[c + 7] = CODES[b4 & 31] as number;
  }
  return String.fromCharCode(...randomCodes);
}

export function ulid(time: number = Date.now()): string {
  if (!Number.isInteger(time) || time < 0 || time > MAX_TIME) {
    throw new RangeError(`ULID time must be a millisecond count from 0 to 2^48-1 (got ${time})`);
  }
  const prefix = timePart(time);
  return readRandom(RANDOM_BYTES, (pool, at) => prefix + encodeRandom(pool, at));
}
