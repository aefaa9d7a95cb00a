import { getAddress, type Hex, parseEther, toHex } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app.ts';
import { accountOf, type StandIn, standIn } from '../../../test/chain.ts';
import { createSafe, executeSafeTransaction, signSafeTransaction } from '../../../test/safe.ts';
import { AppError } from '../../base/errors.ts';
import { createChainClients } from '../../chains/clients.ts';
import { SAFE_1_4_1 } from '../../chains/contracts.ts';
import { type ChainRegistry, createChainRegistry } from '../../chains/registry.ts';
import { ethFeeProxyAbi } from '../abis.ts';
import { referenceBytes } from '../references.ts';
import { evmTransaction } from '../transactions.ts';
import { safeAbi } from './abi.ts';
import {
  type PayerSafe,
  readPayerSafe,
  safeExecution,
  safeTransaction,
} from './safe-transaction.ts';

/**
 * A payer Safe read and its transaction built on a local chain running Safe 1.4.1's published
 * code: the hash we answer is the one the Safe itself computes, and the transaction, signed by
 * two of three owners, runs.
 */

let local: StandIn;
let chains: ChainRegistry;
let deps: { chains: ChainRegistry; clients: ReturnType<typeof createChainClients> };
let snapshot: Hex;

beforeAll(async () => {
  local = await standIn('base');
  const config = testConfig(local.env);
  chains = createChainRegistry(config);
  deps = { chains, clients: createChainClients({ config, chains, transports: local.transports }) };
});
afterAll(async () => {
  await local.chain.close();
});
beforeEach(async () => {
  if (snapshot) await local.chain.revert(snapshot);
  snapshot = await local.chain.snapshot();
});

const base = () => {
  const network = chains.network('base');
  if (!network) throw new Error('no base');
  return network;
};
const owners = () => [1, 2, 3].map((i) => accountOf(local.chain, i));
const DEADLINE = 1_900_000_000;

describe('readPayerSafe', () => {
  it('reads a Safe’s nonce, threshold and owners', async () => {
    const safe = await createSafe(
      local.chain,
      owners().map((o) => o.address),
      2,
    );
    const read = await readPayerSafe(deps, base(), safe.toLowerCase(), DEADLINE);
    expect(read).toEqual({
      address: safe,
      chainId: 8453,
      multiSendCallOnly: SAFE_1_4_1.multiSendCallOnly,
      state: {
        version: '1.4.1',
        nonce: 0n,
        threshold: 2,
        owners: owners().map((o) => o.address),
      },
      deadline: DEADLINE,
    });
  });

  it('refuses a wallet that is no Safe: an account, or a contract of another kind', async () => {
    for (const wallet of [accountOf(local.chain, 4).address, local.chain.addresses.usdc]) {
      const error = await readPayerSafe(deps, base(), wallet, DEADLINE).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: 'not_a_safe',
        message: `${getAddress(wallet)} is not a Safe (1.3.0 or later) on base`,
      });
    }
  });
});

describe('safeTransaction', () => {
  const payee = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  const nativePayment = (value: bigint) =>
    evmTransaction(
      local.chain.addresses.ethFeeProxy,
      ethFeeProxyAbi,
      'transferWithReferenceAndFee',
      [payee, referenceBytes('0123456789abcdef'), 0n, '0x0000000000000000000000000000000000000000'],
      8453,
      value,
    );

  it('packs the calls into one delegatecall of MultiSendCallOnly at the Safe’s nonce', () => {
    const safe: PayerSafe = {
      address: getAddress('0x5afe00000000000000000000000000000000cafe'),
      chainId: 8453,
      multiSendCallOnly: SAFE_1_4_1.multiSendCallOnly,
      state: { version: '1.4.1', nonce: 7n, threshold: 2, owners: [] },
      deadline: DEADLINE,
    };
    const built = safeTransaction(safe, [{ to: payee, data: '0x', value: '0x2a', chainId: 8453 }]);
    expect(built).toMatchInlineSnapshot(`
      {
        "baseGas": "0",
        "calls": [
          {
            "chainId": 8453,
            "data": "0x",
            "to": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "value": "0x2a",
          },
        ],
        "chainId": 8453,
        "data": "0x8d80ff0a00000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000055005aaeb6053f3e94c9b9a09f33669435e7ef1beaed000000000000000000000000000000000000000000000000000000000000002a00000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "gasPrice": "0",
        "gasToken": "0x0000000000000000000000000000000000000000",
        "nonce": "7",
        "operation": 1,
        "owners": [],
        "refundReceiver": "0x0000000000000000000000000000000000000000",
        "safeAddress": "0x5AfE00000000000000000000000000000000cAfE",
        "safeTxGas": "0",
        "safeTxHash": "0x22d814b9542eddf67623724dac02ba3dadc1eaa2633267f106bf8224e53d6da7",
        "threshold": 2,
        "to": "0x9641d764fc13c8B624c04430C7356C1C7C8102e2",
        "value": "0",
      }
    `);
    expect(safeExecution(built)).toEqual({
      to: SAFE_1_4_1.multiSendCallOnly,
      data: built.data,
      value: '0x0',
      chainId: 8453,
    });
  });

  it('answers the hash the Safe computes, and runs signed by two of three owners', async () => {
    const [first, second, third] = owners();
    if (!first || !second || !third) throw new Error('no owners');
    const safe = await createSafe(local.chain, [first.address, second.address, third.address], 2);
    // Native currency from a Safe: each packed call carries its own value, from the Safe's.
    await local.chain.provider.request({
      method: 'hardhat_setBalance',
      params: [safe, toHex(parseEther('1'))],
    });
    const read = await readPayerSafe(deps, base(), safe, DEADLINE);
    const built = safeTransaction(read, [nativePayment(1000n), nativePayment(234n)]);
    const onChain = await local.chain.client.readContract({
      address: safe,
      abi: safeAbi,
      functionName: 'getTransactionHash',
      args: [
        built.to,
        0n,
        built.data,
        built.operation,
        0n,
        0n,
        0n,
        built.gasToken,
        built.refundReceiver,
        0n,
      ],
    });
    expect(built.safeTxHash).toBe(onChain);

    const before = await local.chain.client.getBalance({ address: payee });
    const signatures = [
      await signSafeTransaction(third, built, 'typed'),
      await signSafeTransaction(first, built, 'eth_sign'),
    ];
    await executeSafeTransaction(local.chain, accountOf(local.chain, 4), built, signatures);
    expect((await local.chain.client.getBalance({ address: payee })) - before).toBe(1234n);
    expect(await local.chain.client.getBalance({ address: safe })).toBe(parseEther('1') - 1234n);
    expect((await readPayerSafe(deps, base(), safe, DEADLINE)).state.nonce).toBe(1n);
  });

  it('is refused by the Safe with one signature short of its threshold', async () => {
    const [first, second] = owners();
    if (!first || !second) throw new Error('no owners');
    const safe = await createSafe(local.chain, [first.address, second.address], 2);
    const built = safeTransaction(await readPayerSafe(deps, base(), safe, DEADLINE), [
      nativePayment(0n),
    ]);
    await expect(
      executeSafeTransaction(local.chain, first, built, [await signSafeTransaction(first, built)]),
    ).rejects.toThrow(/GS020/);
  });
});
