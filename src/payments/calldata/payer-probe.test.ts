import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChain, startLocalChain } from '../../sandbox/chain.ts';
import { erc20Abi, multicall3Abi } from '../abis.ts';
import {
  decodePayerProbe,
  encodePayerProbe,
  MAX_PROBE_BYTES,
  type ProbeCall,
  probeFits,
  probeSize,
} from './payer-probe.ts';

const FUNDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TOKEN = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9';
const BALANCE_OF: Hex =
  '0x70a0823100000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8';

describe('payer probe', () => {
  it('writes its program, then the calls’ inputs', () => {
    const code = encodePayerProbe(FUNDER, [{ target: TOKEN, callData: BALANCE_OF, words: 1 }]);
    expect(code).toMatchInlineSnapshot(
      `"0x60017370997970c51812dc3a010c7d01b50e0d17dc79c83161002052486100405261002461006261008039610020610060610024610080600073cf7ed3acca5a467e9e704c703e8d87f634fb0fc95af13d61001f10161661000052610080610000f370a0823100000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8"`,
    );
    expect((code.length - 2) / 2).toBe(
      probeSize([{ target: TOKEN, callData: BALANCE_OF, words: 1 }]).code,
    );
  });

  it('fits while its code and its answer are within EIP-170', () => {
    const call = (bytes: number, words: number): ProbeCall => ({
      target: TOKEN,
      callData: `0x${'ab'.repeat(bytes)}`,
      words,
    });
    const head = probeSize([]).code;
    const perCall = probeSize([call(0, 0)]).code - head;
    // Code: head + calls, right at the limit and one byte past it.
    expect(probeFits([call(MAX_PROBE_BYTES - head - perCall, 0)])).toBe(true);
    expect(probeFits([call(MAX_PROBE_BYTES - head - perCall + 1, 0)])).toBe(false);
    // Answer: three words of its own, then the calls'.
    expect(probeFits([call(4, MAX_PROBE_BYTES / 32 - 3)])).toBe(true);
    expect(probeFits([call(4, MAX_PROBE_BYTES / 32 - 2)])).toBe(false);
    expect(() => encodePayerProbe(FUNDER, [call(4, MAX_PROBE_BYTES / 32 - 2)])).toThrow(/EIP-170/);
  });

  it('refuses an address that is not 20 bytes, which would shift the program', () => {
    const short = '0x1234' as const;
    expect(() => encodePayerProbe(short, [])).toThrow(/20-byte/);
    expect(() =>
      encodePayerProbe(FUNDER, [{ target: short, callData: BALANCE_OF, words: 1 }]),
    ).toThrow(/20-byte/);
  });
});

describe('payer probe on a local chain', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await startLocalChain({ chainId: 8453 });
  });
  afterAll(async () => {
    await chain.close();
  });
  const run = async (calls: readonly ProbeCall[]) =>
    (await chain.provider.request({
      method: 'eth_call',
      params: [{ data: encodePayerProbe(FUNDER, calls) }, 'latest'],
    })) as Hex;

  it('answers the flag, the balance, the base fee and each call’s words', async () => {
    const usdc = chain.addresses.usdc;
    const allowance: Hex = `0xdd62ed3e${FUNDER.slice(2).padStart(64, '0')}${chain.addresses.erc20FeeProxy.slice(2).padStart(64, '0')}`;
    const calls = [
      { target: usdc, callData: `0x70a08231${FUNDER.slice(2).padStart(64, '0')}` as Hex, words: 1 },
      { target: usdc, callData: allowance, words: 1 },
    ];
    const answer = decodePayerProbe(await run(calls), calls);
    expect(answer.nativeBalance).toBe(await chain.client.getBalance({ address: FUNDER }));
    // What block.basefee is inside an eth_call, asked of Multicall3.
    expect(answer.baseFee).toBe(
      await chain.client.readContract({
        address: chain.addresses.multicall3,
        abi: multicall3Abi,
        functionName: 'getBasefee',
      }),
    );
    const balance = await chain.client.readContract({
      address: usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [FUNDER],
    });
    expect(BigInt(answer.results[0] ?? '0x')).toBe(balance);
    expect(BigInt(answer.results[1] ?? '0x')).toBe(0n);
  });

  it('lowers its flag for a call that answers fewer words than asked, not for one asked none', async () => {
    // An address without code: every call to it succeeds and answers nothing.
    const nowhere: Hex = '0x000000000000000000000000000000000000dEaD';
    const none = [{ target: nowhere, callData: '0x12345678' as Hex, words: 0 }];
    expect(BigInt((await run(none)).slice(0, 66))).toBe(1n);
    const one = [{ target: nowhere, callData: '0x12345678' as Hex, words: 1 }];
    expect(BigInt((await run(one)).slice(0, 66))).toBe(0n);
    expect(() => decodePayerProbe(`0x${'0'.repeat(64 * 4)}`, one)).toThrow(/a call failed/);
  });
});
