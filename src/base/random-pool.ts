import { randomFillSync } from 'node:crypto';

/**
 * Cryptographic random bytes taken from a pool refilled 4 KiB at a time: one `randomFillSync`
 * per few hundred ids instead of a call (and a Buffer) per id. The bytes are the same
 * cryptographic ones; each is handed out once and wiped once read, so no id's randomness lingers
 * in memory for another to read.
 */

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * Calls `read` with the pool and the offset of `count` fresh random bytes in it (valid during
 * the call only), then wipes them. `count` is at most 4 KiB.
 */
export function readRandom<T>(count: number, read: (bytes: Buffer, at: number) => T): T {
  if (count < 1 || count > POOL_BYTES) throw new RangeError(`cannot take ${count} random bytes`);
  if (offset + count > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += count;
  try {
    return read(pool, at);
  } finally {
    pool.fill(0, at, at + count);
  }
}

/** `count` random bytes as lower-case hex. */
export function randomHex(count: number): string {
  return readRandom(count, (bytes, at) => bytes.toString('hex', at, at + count));
}
