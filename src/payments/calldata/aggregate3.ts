import { type Address, BaseError, type Hex } from 'viem';

/**
 * Multicall3's `aggregate3((address target, bool allowFailure, bytes callData)[])` calldata and
 * its `(bool success, bytes returnData)[]` answer, written and read directly: the one call every
 * `/pay` makes, where viem's general ABI coder was a tenth of the request's CPU. The layout is
 * the ABI's (aggregate3.test.ts holds it to viem's coder on random calls).
 */

/** keccak256("aggregate3((address,bool,bytes)[])")[0..4]. */
export const AGGREGATE3_SELECTOR = '0x82ad56cb';

export interface Call3 {
  readonly target: Address;
  readonly allowFailure: boolean;
  readonly callData: Hex;
}

export interface Call3Result {
  readonly success: boolean;
  readonly returnData: Hex;
}

/** One 32-byte word of a non-negative integer, as 64 hex digits. */
const uint = (value: number) => value.toString(16).padStart(64, '0');
const WORD = 64;

export function encodeAggregate3(calls: readonly Call3[]): Hex {
  // Each tuple holds a dynamic `bytes`, so the array is a head of offsets, then the tuples.
  const tuples = calls.map((call) => {
    const data = call.callData.slice(2);
    if (data.length % 2 !== 0) throw new Error(`callData is not whole bytes: ${call.callData}`);
    const padded = data.padEnd(Math.ceil(data.length / WORD) * WORD, '0');
    return (
      call.target.slice(2).toLowerCase().padStart(WORD, '0') +
      uint(call.allowFailure ? 1 : 0) +
      uint(3 * 32) + // callData starts after the three head words
      uint(data.length / 2) +
      padded
    );
  });
  let offset = calls.length * 32;
  const heads = tuples.map((tuple) => {
    const head = uint(offset);
    offset += tuple.length / 2;
    return head;
  });
  return `${AGGREGATE3_SELECTOR}${uint(32)}${uint(calls.length)}${heads.join('')}${tuples.join('')}`;
}

/** A viem error, as viem's own decoder would throw: the chain client reports it as an RPC failure. */
export class Aggregate3DecodingError extends BaseError {
  constructor(reason: string) {
    super(`aggregate3 answered something that is not (bool,bytes)[]: ${reason}`, {
      name: 'Aggregate3DecodingError',
    });
  }
}

export function decodeAggregate3(data: Hex): Call3Result[] {
  const hex = data.slice(2);
  const read = (byte: number): number => {
    const at = byte * 2;
    if (at + WORD > hex.length) throw new Aggregate3DecodingError(`no word at byte ${byte}`);
    const word = hex.slice(at, at + WORD);
    // Offsets and lengths of a real answer are small; a huge one is not an answer.
    if (!/^0{48}[0-9a-f]{16}$/i.test(word)) throw new Aggregate3DecodingError(`bad word ${word}`);
    return Number.parseInt(word, 16);
  };
  const array = read(0);
  const count = read(array);
  const results: Call3Result[] = [];
  for (let i = 0; i < count; i++) {
    const tuple = array + 32 + read(array + 32 + i * 32);
    const success = read(tuple);
    if (success > 1) throw new Aggregate3DecodingError(`bool ${success}`);
    const bytes = tuple + read(tuple + 32);
    const length = read(bytes);
    const start = (bytes + 32) * 2;
    if (start + length * 2 > hex.length) throw new Aggregate3DecodingError('bytes past the end');
    results.push({
      success: success === 1,
      returnData: `0x${hex.slice(start, start + length * 2)}`,
    });
  }
  return results;
}
