import {
  BaseError,
  createPublicClient,
  createWalletClient,
  custom,
  encodeFunctionResult,
  type PublicClient,
  parseAbi,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountOf } from '../../test/chain.ts';
import { type LocalChain, startLocalChain } from '../sandbox/chain.ts';
import { erc20Abi, multicall3Abi } from './abis.ts';
import { readPayerState } from './payer-state.ts';

/**
 * The payer's state in one `aggregate3`, read on a local chain with the real tokens, against
 * the same values read one by one through viem's own encoder and decoder.
 */

let chain: LocalChain;
let client: PublicClient;

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453 });
  client = createPublicClient({
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  }) as PublicClient;
});
afterAll(async () => {
  await chain.close();
});

describe('readPayerState', () => {
  it('reads native balance, base fee, each token’s balance and allowance, and extra calls', async () => {
    const payer = accountOf(chain, 1);
    const spender = chain.addresses.erc20FeeProxy;
    const { usdc, dai } = chain.addresses;
    const wallet = createWalletClient({
      account: payer,
      chain: chain.chain,
      transport: custom(chain.provider, { retryCount: 0 }),
    });
    const hash = await wallet.writeContract({
      address: dai,
      abi: erc20Abi,
      functionName: 'approve',
      args: [spender, 123_456_789n],
    });
    await client.waitForTransactionReceipt({ hash });

    const state = await readPayerState(client, chain.addresses.multicall3, {
      funder: payer.address,
      owner: payer.address,
      tokens: [
        { token: usdc, spender },
        { token: dai, spender },
      ],
      extra: [{ address: usdc, abi: erc20Abi, functionName: 'decimals' }],
    });

    const one = (address: `0x${string}`, functionName: 'balanceOf' | 'allowance', args: never) =>
      client.readContract({ address, abi: erc20Abi, functionName, args });
    expect(state.nativeBalance).toBe(await client.getBalance({ address: payer.address }));
    // What block.basefee is inside an eth_call, asked on its own.
    expect(state.baseFee).toBe(
      await client.readContract({
        address: chain.addresses.multicall3,
        abi: multicall3Abi,
        functionName: 'getBasefee',
      }),
    );
    expect(state.tokens.get(usdc.toLowerCase())).toEqual({
      balance: await one(usdc, 'balanceOf', [payer.address] as never),
      allowance: 0n,
    });
    expect(state.tokens.get(dai.toLowerCase())).toEqual({
      balance: await one(dai, 'balanceOf', [payer.address] as never),
      allowance: 123_456_789n,
    });
    expect(state.tokens.get(usdc.toLowerCase())?.balance).toBeGreaterThan(0n);
    expect(state.extra).toEqual([6]);
  });

  it('fails the whole read when one call reverts', async () => {
    const payer = accountOf(chain, 1);
    // An address with no code: balanceOf returns nothing, and aggregate3 reverts on it.
    const nowhere = '0x000000000000000000000000000000000000dEaD';
    await expect(
      readPayerState(client, chain.addresses.multicall3, {
        funder: payer.address,
        owner: payer.address,
        tokens: [{ token: nowhere, spender: chain.addresses.erc20FeeProxy }],
      }),
    ).rejects.toThrow();
  });

  it('refuses an answer that reports a failed call, as viem did, so the caller answers 502', async () => {
    const abi = parseAbi([
      'struct Result { bool success; bytes returnData; }',
      'function aggregate3((address,bool,bytes)[] calls) payable returns (Result[] returnData)',
    ]);
    const word = `0x${'0'.repeat(63)}1` as const;
    const lying = createPublicClient({
      transport: custom({
        request: async () =>
          encodeFunctionResult({
            abi,
            functionName: 'aggregate3',
            result: [
              { success: true, returnData: word },
              { success: false, returnData: word },
            ],
          }),
      }),
    }) as PublicClient;
    const payer = accountOf(chain, 1);
    const failure = await readPayerState(lying, chain.addresses.multicall3, {
      funder: payer.address,
      owner: payer.address,
      tokens: [],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BaseError);
    expect(String(failure)).toContain('1 failed');
  });
});
