import { type Address, BaseError, type Hex } from 'viem';

/**
 * The payer's reads as one deployless `eth_call`: an `eth_call` without `to` runs its data as
 * contract creation code, and what that code returns is the call's answer. The code here reads
 * the funder's native balance (BALANCE) and the base fee (BASEFEE) itself, makes each call with
 * CALL, and returns every answer in fixed 32-byte words. On a local EVM it cost half the
 * CPU of the same reads through Multicall3's `aggregate3`, whose Solidity decodes and re-encodes
 * every call and answer (docs/architecture.md, "Calldata"); no contract needs to be deployed.
 *
 * The answer, in words: a flag (1 when every call succeeded and answered at least its words,
 * else 0), the native balance, the base fee, then each call's words in order. The flag comes
 * first so the answer (the "deployed code") never starts with 0xEF, which EIP-3541 refuses.
 */

export interface ProbeCall {
  readonly target: Address;
  readonly callData: Hex;
  /** The 32-byte words its answer holds (a uint256 is one; a static tuple of n, n). */
  readonly words: number;
}

/** EIP-170: code a creation returns is at most this long (and EIP-3860 allows initcode twice it). */
export const MAX_PROBE_BYTES = 24_576;

/** Head: the flag, BALANCE and BASEFEE; each call: CODECOPY, CALL and the check. */
const HEAD_BYTES = 2 + 21 + 1 + 3 + 1 + 1 + 3 + 1;
const CALL_BYTES = 10 + 37 + 7;
const TAIL_BYTES = 3 + 1 + 3 + 3 + 1;

const push2 = (value: number) => `61${value.toString(16).padStart(4, '0')}`;
/** An address as PUSH20's operand: exactly 20 bytes, or the program would read past it. */
const address = (value: Address) => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new Error(`not a 20-byte address: ${value}`);
  return value.slice(2).toLowerCase();
};

/** The probe's size in bytes (code and call inputs) and its answer's, to see if it fits. */
export function probeSize(calls: readonly ProbeCall[]): { code: number; answer: number } {
  let inputs = 0;
  let words = 3;
  for (const call of calls) {
    inputs += (call.callData.length - 2) / 2;
    words += call.words;
  }
  return { code: HEAD_BYTES + CALL_BYTES * calls.length + TAIL_BYTES + inputs, answer: words * 32 };
}

export function probeFits(calls: readonly ProbeCall[]): boolean {
  const size = probeSize(calls);
  return size.code <= MAX_PROBE_BYTES && size.answer <= MAX_PROBE_BYTES;
}

/**
 * The creation code: the program, then every call's input, which CODECOPY puts in memory
 * after the answer's words before its CALL. Every offset is a PUSH2 (all fit in 16 bits:
 * `probeFits`), so the program's length is known before the offsets are.
 */
export function encodePayerProbe(funder: Address, calls: readonly ProbeCall[]): Hex {
  const { code: size, answer } = probeSize(calls);
  if (size > MAX_PROBE_BYTES || answer > MAX_PROBE_BYTES) {
    throw new Error(`a probe of ${size} bytes answering ${answer} is past EIP-170's limit`);
  }
  // flag = 1; word 1 = BALANCE(funder); word 2 = BASEFEE (PUSH1 1, PUSH20, BALANCE, MSTORE…)
  let program = `6001 73${address(funder)} 31 ${push2(0x20)} 52 48 ${push2(0x40)} 52`;
  let input = HEAD_BYTES + CALL_BYTES * calls.length + TAIL_BYTES;
  let out = 0x60;
  for (const call of calls) {
    const length = (call.callData.length - 2) / 2;
    const expected = call.words * 32;
    // CODECOPY(destOffset: the scratch after the answer, offset: this input, size)
    program += ` ${push2(length)} ${push2(input)} ${push2(answer)} 39`;
    // CALL(gas, target, value 0, in, in length, out, expected): the answer lands in place.
    program += ` ${push2(expected)} ${push2(out)} ${push2(length)} ${push2(answer)} 6000`;
    program += ` 73${address(call.target)} 5a f1`;
    // flag &= success && RETURNDATASIZE > expected - 1 (a void answer: success && 1 && 1,
    // as long, so that every call's program is CALL_BYTES long)
    program += expected === 0 ? ' 6001 6001 16 16 16' : ` 3d ${push2(expected - 1)} 10 16 16`;
    input += length;
    out += expected;
  }
  // word 0 = flag; RETURN(0, answer)
  program += ` ${push2(0)} 52 ${push2(answer)} ${push2(0)} f3`;
  const data = calls.map((call) => call.callData.slice(2).toLowerCase()).join('');
  return `0x${program.replaceAll(' ', '')}${data}`;
}

/** A viem error, as a decoder of viem's would throw: the chain client reports an RPC failure. */
class PayerProbeError extends BaseError {
  constructor(reason: string) {
    super(`the payer probe's answer is not what it asked for: ${reason}`, {
      name: 'PayerProbeError',
    });
  }
}

export interface ProbeAnswer {
  readonly nativeBalance: bigint;
  readonly baseFee: bigint;
  /** Each call's words, as the ABI-encoded answer of its function. */
  readonly results: readonly Hex[];
}

export function decodePayerProbe(data: Hex, calls: readonly ProbeCall[]): ProbeAnswer {
  const { answer } = probeSize(calls);
  if (data.length !== 2 + answer * 2) {
    throw new PayerProbeError(`${(data.length - 2) / 2} bytes where ${answer} were due`);
  }
  const word = (index: number) => data.slice(2 + index * 64, 2 + (index + 1) * 64);
  if (BigInt(`0x${word(0)}`) !== 1n) {
    throw new PayerProbeError('a call failed, or answered fewer words than its function returns');
  }
  let at = 3;
  const results = calls.map((call) => {
    const result = `0x${data.slice(2 + at * 64, 2 + (at + call.words) * 64)}` as Hex;
    at += call.words;
    return result;
  });
  return {
    nativeBalance: BigInt(`0x${word(1)}`),
    baseFee: BigInt(`0x${word(2)}`),
    results,
  };
}
