import fc from 'fast-check';
import { encodeFunctionData, getAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { erc20Abi, erc20FeeProxyAbi } from './abis.ts';
import { encodeCall, evmTransaction } from './transactions.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

const address = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => getAddress(`0x${Buffer.from(bytes).toString('hex')}`));
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const bytes = fc
  .uint8Array({ maxLength: 40 })
  .map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex);

describe('encodeCall', () => {
  it('encodes as viem does, call after call on the same prepared function', () => {
    fc.assert(
      fc.property(address, address, uint256, bytes, uint256, address, (a, b, n, ref, fee, c) => {
        const args = [a, b, n, ref, fee, c] as const;
        expect(encodeCall(erc20FeeProxyAbi, 'transferFromWithReferenceAndFee', args)).toBe(
          encodeFunctionData({
            abi: erc20FeeProxyAbi,
            functionName: 'transferFromWithReferenceAndFee',
            args,
          }),
        );
        expect(encodeCall(erc20Abi, 'approve', [a, n])).toBe(
          encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [a, n] }),
        );
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('refuses a function the ABI lacks, and arguments that do not fit it', () => {
    expect(() => encodeCall(erc20Abi, 'mint', [])).toThrow(/mint/);
    expect(() => encodeCall(erc20Abi, 'approve', ['0x12', 1n])).toThrow();
  });

  it('makes a transaction of the call', () => {
    const spender = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    expect(
      evmTransaction(spender, erc20Abi, 'approve', [spender, 5n], 8453),
    ).toMatchInlineSnapshot(`
        {
          "chainId": 8453,
          "data": "0x095ea7b300000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c80000000000000000000000000000000000000000000000000000000000000005",
          "to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
          "value": "0x0",
        }
      `);
  });
});
