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
import { answerWords, readPayerState } from './payer-state.ts';

/**
 * The payer's state in one `eth_call` (the deployless probe, or `aggregate3` where the probe
 * cannot carry the calls), read on a local chain with the real tokens, against the same values
 * read one by one through viem's own encoder and decoder.
 */

let chain: LocalChain;
let client: PublicClient;
/** The `eth_call`s `client` sent, newest last. */
const sent: { to?: string; data: string }[] = [];

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 8453 });
  client = createPublicClient({
    chain: chain.chain,
    transport: custom(
      {
        request: (args: { method: string; params?: unknown }) => {
          if (args.method === 'eth_call') {
            sent.push((args.params as [{ to?: string; data: string }])[0]);
          }
          return chain.provider.request(args as never);
        },
      },
      { retryCount: 0 },
    ),
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
    // Read by the probe: creation code, no contract called.
    const [probe] = sent.splice(0).filter((call) => call.data.length > 1_000);
    expect(probe?.to).toBeUndefined();
  });

  it('reads through aggregate3 an extra call whose answer is dynamic, the same values', async () => {
    const payer = accountOf(chain, 1);
    const spender = chain.addresses.erc20FeeProxy;
    const { usdc } = chain.addresses;
    const query = {
      funder: payer.address,
      owner: payer.address,
      tokens: [{ token: usdc, spender }],
    };
    sent.length = 0;
    const probed = await readPayerState(client, chain.addresses.multicall3, {
      ...query,
      extra: [{ address: usdc, abi: erc20Abi, functionName: 'decimals' }],
    });
    expect(sent.at(-1)?.to).toBeUndefined();
    const aggregated = await readPayerState(client, chain.addresses.multicall3, {
      ...query,
      extra: [
        { address: usdc, abi: erc20Abi, functionName: 'decimals' },
        {
          address: chain.addresses.tst,
          abi: parseAbi(['function symbol() view returns (string)']),
          functionName: 'symbol',
        },
      ],
    });
    expect(sent.at(-1)?.to).toBe(chain.addresses.multicall3);
    expect(aggregated.nativeBalance).toBe(probed.nativeBalance);
    expect(aggregated.baseFee).toBe(probed.baseFee);
    expect(aggregated.tokens).toEqual(probed.tokens);
    expect(aggregated.extra).toEqual([
      6,
      await client.readContract({
        address: chain.addresses.tst,
        abi: parseAbi(['function symbol() view returns (string)']),
        functionName: 'symbol',
      }),
    ]);
    expect(aggregated.extra[1]).toMatch(/^[A-Z]+$/);
  });

  it('fails the whole read when one call reverts', async () => {
    const payer = accountOf(chain, 1);
    // An address with no code: balanceOf answers nothing, which the probe counts as a failure
    // (and on which aggregate3 reverts).
    const nowhere = '0x000000000000000000000000000000000000dEaD';
    const failure = await readPayerState(client, chain.addresses.multicall3, {
      funder: payer.address,
      owner: payer.address,
      tokens: [{ token: nowhere, spender: chain.addresses.erc20FeeProxy }],
    }).catch((error: unknown) => error);
    // A viem error: the chain client answers 503 for it, not 500.
    expect(failure).toBeInstanceOf(BaseError);
    expect(String(failure)).toContain('a call failed');
  });

  it('refuses an answer that reports a failed call, as viem did, so the caller answers 503', async () => {
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
      // A dynamic answer: read through aggregate3.
      extra: [
        {
          address: chain.addresses.usdc,
          abi: parseAbi(['function symbol() view returns (string)']),
          functionName: 'symbol',
        },
      ],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BaseError);
    expect(String(failure)).toContain('answered by 2 results of which 1 failed');
  });

  it('refuses a probe answer of the wrong length or with its flag down, so the caller answers 503', async () => {
    const payer = accountOf(chain, 1);
    const word = (value: number) => value.toString(16).padStart(64, '0');
    const answering = (answer: string) =>
      createPublicClient({ transport: custom({ request: async () => answer }) }) as PublicClient;
    const query = {
      funder: payer.address,
      owner: payer.address,
      tokens: [{ token: chain.addresses.usdc, spender: chain.addresses.erc20FeeProxy }],
    };
    // flag, native balance, base fee, balance, allowance
    const good = `0x${word(1)}${word(5)}${word(7)}${word(11)}${word(13)}`;
    const state = await readPayerState(answering(good), chain.addresses.multicall3, query);
    expect([state.nativeBalance, state.baseFee]).toEqual([5n, 7n]);
    expect(state.tokens.get(chain.addresses.usdc.toLowerCase())).toEqual({
      balance: 11n,
      allowance: 13n,
    });
    for (const [answer, message] of [
      [`0x${word(0)}${word(5)}${word(7)}${word(11)}${word(13)}`, 'a call failed'],
      [`0x${word(1)}${word(5)}${word(7)}${word(11)}`, '128 bytes where 160 were due'],
    ] as const) {
      const failure = await readPayerState(
        answering(answer),
        chain.addresses.multicall3,
        query,
      ).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(BaseError);
      expect(String(failure)).toContain(message);
    }
  });
});

describe('answerWords', () => {
  it('counts the words of static answers and gives up on dynamic ones', () => {
    const words = (signature: string) =>
      answerWords({
        address: '0x0000000000000000000000000000000000000001',
        abi: parseAbi([signature]),
        functionName: 'f',
      });
    expect(words('function f() returns (uint256)')).toBe(1);
    expect(words('function f() returns (uint8, address, bool, bytes32)')).toBe(4);
    expect(words('function f() returns ((uint256 a, (address b, bool c) d) e, int64)')).toBe(4);
    expect(words('function f() returns (uint256[3])')).toBe(3);
    expect(words('function f() returns ((uint256 a, bool b)[2])')).toBe(4);
    expect(words('function f()')).toBe(0);
    expect(words('function f() returns (string)')).toBeNull();
    expect(words('function f() returns (bytes)')).toBeNull();
    expect(words('function f() returns (uint256[])')).toBeNull();
    expect(words('function f() returns ((uint256 a, string b))')).toBeNull();
  });
});
