import fc from 'fast-check';
import { type Abi, type AbiFunction, encodeFunctionData, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import * as abis from '../abis.ts';
import { encodeCall } from '../transactions.ts';
import { flatEncoder } from './flat-abi.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as Hex;
const address = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .chain((bytes) =>
    fc.constantFrom(
      getAddress(hex(bytes)),
      hex(bytes).toLowerCase() as Hex,
      `0x${hex(bytes).slice(2).toUpperCase()}` as Hex,
    ),
  );

function argument(type: string): fc.Arbitrary<unknown> {
  if (type === 'address') return address;
  if (type === 'bool') return fc.boolean();
  if (type === 'bytes') return fc.uint8Array({ maxLength: 100 }).map(hex);
  const bits = Number(/^uint(\d*)$/.exec(type)?.[1] || 256);
  return fc.oneof(
    fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }),
    fc.constant((1n << BigInt(bits)) - 1n),
    fc.constant(0n),
  );
}

/** Every function of our ABIs whose parameters are all flat: the ones encoded directly. */
const flatFunctions = (Object.entries(abis) as [string, unknown][])
  .filter((entry): entry is [string, Abi] => Array.isArray(entry[1]))
  .flatMap(([name, abi]) =>
    abi
      .filter((item): item is AbiFunction => item.type === 'function')
      .filter((item) => flatEncoder(item.name, item.inputs) !== null)
      .map((item) => ({ label: `${name}.${item.name}`, abi, item })),
  );

describe('flat ABI encoding', () => {
  it('covers the payment calls', () => {
    expect(flatFunctions.map((f) => f.label)).toEqual(
      expect.arrayContaining([
        'erc20Abi.approve',
        'erc20FeeProxyAbi.transferFromWithReferenceAndFee',
        'ethFeeProxyAbi.transferWithReferenceAndFee',
      ]),
    );
  });

  it.each(flatFunctions)(
    'encodes $label as viem does, and refuses what viem refuses',
    ({ abi, item }) => {
      fc.assert(
        fc.property(fc.tuple(...item.inputs.map((input) => argument(input.type))), (args) => {
          let expected: Hex | null = null;
          try {
            expected = encodeFunctionData({ abi, functionName: item.name, args } as never);
          } catch {
            // viem refuses the arguments (an all-upper-case address has no valid checksum form)
          }
          if (expected === null) expect(() => encodeCall(abi, item.name, args)).toThrow();
          else expect(encodeCall(abi, item.name, args)).toBe(expected);
        }),
        { seed: SEED, numRuns: 100 },
      );
    },
  );

  it('refuses what viem refuses', () => {
    const { erc20Abi, erc20FeeProxyAbi } = abis;
    const spender = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const badChecksum = '0x70997970c51812dc3A010C7d01b50e0d17dc79C8';
    const upperCase = '0x70997970C51812DC3A010C7D01B50E0D17DC79C8';
    for (const args of [
      [badChecksum, 1n],
      [upperCase, 1n],
      ['0x12', 1n],
      [spender, -1n],
      [spender, 1n << 256n],
      [spender],
    ]) {
      expect(() => encodeCall(erc20Abi, 'approve', args)).toThrow();
      expect(() =>
        encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args } as never),
      ).toThrow();
    }
    // An integer as a numeric string or beyond 2^53 as a number: viem's coder takes it.
    for (const amount of ['12', 2 ** 60]) {
      expect(encodeCall(erc20Abi, 'approve', [spender, amount])).toBe(
        encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [spender, amount],
        } as never),
      );
    }
    const payment = [spender, spender, 1n, '0x123', 0n, spender];
    expect(() => encodeCall(erc20FeeProxyAbi, 'transferFromWithReferenceAndFee', payment)).toThrow(
      /hex bytes/,
    );
  });
});
