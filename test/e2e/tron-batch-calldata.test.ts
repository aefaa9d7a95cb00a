import { type Address, encodeFunctionData, type Hex, parseAbi, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainClients } from '../../src/chains/clients.ts';
import { createChainRegistry } from '../../src/chains/registry.ts';
import { evmToTron, tronToEvm } from '../../src/chains/tron-address.ts';
import { erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import { buildTronBatchCalldata } from '../../src/payments/calldata/tron-batch.ts';
import { referenceTopic } from '../../src/payments/references.ts';
import type { PaymentLeg, TronTransaction } from '../../src/payments/transactions.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { testConfig } from '../app.ts';
import { accountOf, sendAll } from '../chain.ts';
import { placeTronBatch } from '../tron-world.ts';

/**
 * Tron batch calldata, proven without a Tron node: the calls run on a local EVM with the
 * contracts at the 20-byte forms of their Tron addresses (Tron runs the same EVM code). The
 * Tron ERC20BatchPayments is not shipped by any registry package; its two ERC20 functions are
 * the legacy BatchPayments' (contracts.md §2.2), whose real bytecode stands in for it, with its
 * batch fee at zero as the Tron contract has none.
 */

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDC = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8';
const PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';
const BATCH = 'TRZbXXuLd3HW5utzVysA3rpLgU7sVBrd1D';
const TOKEN_ABI = parseAbi([
  'function mint(address to, uint256 amount)',
  'function balanceOf(address) view returns (uint256)',
]);

const config = testConfig();
const chains = createChainRegistry(config);
const deps = { chains, clients: createChainClients({ config, chains }) };
let evm: LocalChain;

beforeAll(async () => {
  evm = await startLocalChain({ chainId: 31337, walletCount: 6 });
  const request = (method: string, params: unknown[]) => evm.provider.request({ method, params });
  for (const [tron, from] of [
    [USDT, evm.addresses.usdt],
    [USDC, evm.addresses.usdc],
    [PROXY, evm.addresses.erc20FeeProxy],
  ] as const) {
    await request('hardhat_setCode', [
      tronToEvm(tron),
      await evm.client.getCode({ address: from }),
    ]);
  }
  await placeTronBatch(evm);
  expect(
    await evm.client.readContract({
      address: tronToEvm(BATCH),
      abi: parseAbi(['function batchFee() view returns (uint256)']),
      functionName: 'batchFee',
    }),
  ).toBe(0n);
}, 120_000);
afterAll(async () => {
  await evm?.close();
});

function leg(currency: 'USDT-tron' | 'USDC-tron', payee: number, amount: bigint, i: number) {
  const network = chains.network('tron');
  const found = chains.currency(currency);
  if (!network || !found) throw new Error(currency);
  return {
    requestId: `01${String(i).repeat(64)}`,
    network,
    currency: found,
    payee: evmToTron(accountOf(evm, payee).address),
    amount,
    paymentReference: `a${i}`.repeat(8),
    feeAmount: i === 0 ? 7n : 0n,
    feeAddress: i === 0 ? evmToTron(accountOf(evm, 5).address) : null,
  } satisfies PaymentLeg;
}

async function balance(token: string, owner: Address): Promise<bigint> {
  return evm.client.readContract({
    address: tronToEvm(token),
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** Sends Tron calls as their EVM twins: to the 20 bytes, with the same data. */
async function run(payer: number, calls: readonly TronTransaction[]): Promise<Hex[]> {
  return sendAll(
    evm,
    accountOf(evm, payer),
    calls.map((call) => ({
      to: tronToEvm(call.contractAddress),
      data: call.data,
      value: '0x0',
      chainId: evm.chainId,
    })),
  );
}

async function mint(token: string, payer: number, amount: bigint) {
  await sendAll(evm, accountOf(evm, payer), [
    {
      to: tronToEvm(token),
      data: encodeFunctionData({
        abi: TOKEN_ABI,
        functionName: 'mint',
        args: [accountOf(evm, payer).address, amount],
      }),
      value: '0x0',
      chainId: evm.chainId,
    },
  ]);
}

describe('Tron batch calldata on the real bytecode', () => {
  it.each([
    ['one token', ['USDT-tron', 'USDT-tron', 'USDT-tron'] as const, 3],
    ['two tokens', ['USDT-tron', 'USDC-tron', 'USDT-tron'] as const, 4],
  ])(
    'pays every recipient exactly, with %s, and each request emits its own event',
    async (_, currencies, payer) => {
      await mint(USDT, payer, 100_000_000n);
      await mint(USDC, payer, 100_000_000n);
      const legs = currencies.map((currency, i) =>
        leg(currency, 1 + (i % 2), 1_000_000n * BigInt(i + 1) + 1n, i),
      );
      const calldata = buildTronBatchCalldata(deps, legs, {
        wallet: evmToTron(accountOf(evm, payer).address),
      });
      const tokenOf = (currency: string) => (currency === 'USDT-tron' ? USDT : USDC);
      const before = await Promise.all(
        legs.map((l) => balance(tokenOf(l.currency.id), tronToEvm(l.payee))),
      );
      const feeBefore = await balance(USDT, accountOf(evm, 5).address);

      const hashes = await run(payer, [...calldata.approvals, calldata.batchPaymentTransaction]);

      const moved = new Map<string, bigint>();
      for (const l of legs) {
        const key = `${l.currency.id}:${l.payee}`;
        moved.set(key, (moved.get(key) ?? 0n) + l.amount);
      }
      for (const [i, l] of legs.entries()) {
        const key = `${l.currency.id}:${l.payee}`;
        const after = await balance(tokenOf(l.currency.id), tronToEvm(l.payee));
        const first = legs.findIndex((x) => `${x.currency.id}:${x.payee}` === key);
        expect(after - (before[first] ?? 0n), `leg ${i}`).toBe(moved.get(key));
      }
      expect((await balance(USDT, accountOf(evm, 5).address)) - feeBefore).toBe(7n);

      const receipt = await evm.client.getTransactionReceipt({ hash: hashes.at(-1) as Hex });
      const events = parseEventLogs({ abi: erc20FeeProxyAbi, logs: receipt.logs });
      expect(events.map((e) => e.address.toLowerCase())).toEqual(
        legs.map(() => tronToEvm(PROXY).toLowerCase()),
      );
      expect(events.map((e) => e.topics[1])).toEqual(
        legs.map((l) => referenceTopic(l.paymentReference)),
      );
    },
  );
});
