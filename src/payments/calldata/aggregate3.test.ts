import fc from 'fast-check';
import {
  type Address,
  decodeFunctionData,
  encodeFunctionData,
  encodeFunctionResult,
  type Hex,
  parseAbi,
  toFunctionSelector,
} from 'viem';
import { describe, expect, it } from 'vitest';
import {
  AGGREGATE3_SELECTOR,
  Aggregate3DecodingError,
  decodeAggregate3,
  encodeAggregate3,
} from './aggregate3.ts';

const abi = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
]);

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

const hexBytes = (max: number) =>
  fc
    .uint8Array({ maxLength: max })
    .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}` as Hex);
const address = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}` as Address);

describe('aggregate3 calldata', () => {
  it('has the selector of aggregate3((address,bool,bytes)[])', () => {
    expect(AGGREGATE3_SELECTOR).toBe(toFunctionSelector('aggregate3((address,bool,bytes)[])'));
  });

  it('encodes two reads as the ABI does', () => {
    expect(
      encodeAggregate3([
        {
          target: '0xcA11bde05977b3631167028862bE2a173976CA11',
          allowFailure: false,
          callData: '0x3e64a696',
        },
        {
          target: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
          allowFailure: true,
          callData: '0x70a0823100000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8',
        },
      ]),
    ).toMatchInlineSnapshot(
      `"0x82ad56cb00000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000ca11bde05977b3631167028862be2a173976ca110000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000006000000000000000000000000000000000000000000000000000000000000000043e64a69600000000000000000000000000000000000000000000000000000000000000000000000000000000cf7ed3acca5a467e9e704c703e8d87f634fb0fc900000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000060000000000000000000000000000000000000000000000000000000000000002470a0823100000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c800000000000000000000000000000000000000000000000000000000"`,
    );
  });

  it(`encodes and decodes as viem's ABI coder on random calls (seed ${SEED})`, () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ target: address, allowFailure: fc.boolean(), callData: hexBytes(200) }),
          {
            maxLength: 12,
          },
        ),
        fc.array(fc.record({ success: fc.boolean(), returnData: hexBytes(200) }), {
          maxLength: 12,
        }),
        (calls, results) => {
          const encoded = encodeAggregate3(calls);
          expect(encoded).toBe(
            encodeFunctionData({ abi, functionName: 'aggregate3', args: [calls] }),
          );
          expect(decodeFunctionData({ abi, data: encoded }).args[0]).toEqual(
            calls.map((call) => ({ ...call, target: expect.stringMatching(/^0x/i) })),
          );
          const answer = encodeFunctionResult({ abi, functionName: 'aggregate3', result: results });
          expect(decodeAggregate3(answer)).toEqual(results);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('refuses an answer that is not (bool,bytes)[]', () => {
    for (const answer of [
      '0x',
      '0x01',
      `0x${'f'.repeat(64)}`,
      `0x${'0'.repeat(62)}20${'0'.repeat(62)}05`,
    ]) {
      expect(() => decodeAggregate3(answer as Hex)).toThrow(Aggregate3DecodingError);
    }
  });
});
