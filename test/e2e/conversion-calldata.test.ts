import { type Address, createWalletClient, custom, getAddress, parseAbi } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainClients } from '../../src/chains/clients.ts';
import { createChainRegistry } from '../../src/chains/registry.ts';
import { createEvmSource } from '../../src/detection/evm-source.ts';
import {
  buildConversionCalldata,
  type ConversionLeg,
  MAX_RATE_TIMESPAN,
  padFiat,
} from '../../src/payments/calldata/conversion.ts';
import { referenceTopic } from '../../src/payments/references.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { type LocalChain, startLocalChain } from '../../src/sandbox/chain.ts';
import { sandboxNetwork } from '../../src/sandbox/network.ts';
import { registerSandboxFeed, setSandboxRate } from '../../src/sandbox/rates.ts';
import { testConfig } from '../app.ts';
import { accountOf, sendAll } from '../chain.ts';
import { compileContract } from '../solidity.ts';

/**
 * Conversion calldata on the sandbox chain, which runs the real ChainlinkConversionPath,
 * Erc20ConversionProxy and EthConversionProxy bytecode with mock feeds (USD 1 = 1 USDC = 1 USDT
 * = 1 DAI, ETH 2,000 USD, EUR 1.08, JPY 0.0067 USD): fiat invoices paid in a 6-decimal token,
 * through two hops, with 0 fiat decimals and in the native currency each move exactly the
 * amount the rate gives; a rate moved against the payer past the margin, or gone stale,
 * reverts.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);
const config = testConfig({ SANDBOX: 'true' });
const chains = createChainRegistry(config, sandboxNetwork(config.baseUrl));
let chain: LocalChain;
let deps: Parameters<typeof buildConversionCalldata>[0];

beforeAll(async () => {
  chain = await startLocalChain({ chainId: 31337, walletCount: 8 });
  deps = {
    chains,
    clients: createChainClients({
      config,
      chains,
      transports: { sandbox: custom(chain.provider, { retryCount: 0 }) },
    }),
  };
}, 120_000);
afterAll(async () => {
  await chain?.close();
});

let next = 0;
/** A leg of `amount` base units of `invoice`, paid in `payment`, to a fresh payee. */
function leg(invoice: string, payment: string, amount: bigint, fee = 0n): ConversionLeg {
  const network = chains.network('sandbox');
  const invoiceCurrency = chains.currency(invoice);
  const currency = chains.currency(payment);
  if (!network || !invoiceCurrency || !currency) throw new Error(`${invoice} → ${payment}`);
  next += 1;
  return {
    requestId: `01${next.toString(16).padStart(64, '0')}`,
    network,
    invoiceCurrency,
    currency,
    payee: accountOf(chain, 1).address,
    amount,
    paymentReference: next.toString(16).padStart(16, '0'),
    // `fee` in the invoice's base units, as `amount`; the leg carries it in 8 decimals.
    feeAmount: padFiat(fee, invoiceCurrency),
    feeAddress: fee > 0n ? accountOf(chain, 2).address : null,
  };
}

async function balance(currency: string, owner: Address): Promise<bigint> {
  if (currency === 'ETH-sandbox') return chain.client.getBalance({ address: owner });
  const token = chains.currency(currency)?.address as Address;
  return chain.client.readContract({
    address: token,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

async function pays(
  l: ConversionLeg,
  payer: number,
  expected: { payee: bigint; fee?: bigint },
): Promise<void> {
  const from = accountOf(chain, payer).address;
  const calldata = await buildConversionCalldata(deps, l, { wallet: from });
  const before = [await balance(l.currency.id, l.payee as Address)];
  const feeTo = accountOf(chain, 2).address;
  const feeBefore = await balance(l.currency.id, feeTo);
  await sendAll(chain, accountOf(chain, payer), calldata.transactions as EvmTransaction[]);
  expect((await balance(l.currency.id, l.payee as Address)) - (before[0] ?? 0n)).toBe(
    expected.payee,
  );
  expect((await balance(l.currency.id, feeTo)) - feeBefore).toBe(expected.fee ?? 0n);
}

describe('conversion payments on the real bytecode', () => {
  it('pays a USD invoice in a 6-decimal token at the feed’s rate, fee included', async () => {
    const l = leg('USD', 'USDC-sandbox', 123_456n, 1_000n);
    const calldata = await buildConversionCalldata(deps, l, {
      wallet: accountOf(chain, 3).address,
    });
    expect(calldata.metadata).toMatchObject({
      stepsRequired: 2,
      needsApproval: true,
      requiredAmount: '1244.56',
      maxToSpend: '1269.4512',
      conversionRate: '1',
      maxRateTimespan: Number(MAX_RATE_TIMESPAN),
      hasEnoughBalance: true,
      hasEnoughAllowance: false,
    });
    // The approval names the conversion proxy, which pulls the tokens.
    expect(calldata.transactions[0]?.data.toLowerCase()).toContain(
      chain.addresses.erc20ConversionProxy.slice(2).toLowerCase(),
    );
    await pays(l, 3, { payee: 1_234_560_000n, fee: 10_000_000n });
  });

  it('pays an EUR invoice through EUR → USD → USDC', async () => {
    await pays(leg('EUR', 'USDC-sandbox', 10_000n), 4, { payee: 108_000_000n });
  });

  it('pays a JPY invoice (no fiat decimals) in an 18-decimal token', async () => {
    await pays(leg('JPY', 'DAI-sandbox', 10_000n), 4, { payee: 67n * 10n ** 18n });
  });

  it('pays a USD invoice in the native currency, the rest of the margin given back', async () => {
    const l = leg('USD', 'ETH-sandbox', 5_000n);
    const payer = accountOf(chain, 5).address;
    const calldata = await buildConversionCalldata(deps, l, { wallet: payer });
    expect(calldata.transactions).toHaveLength(1);
    expect(BigInt(calldata.transactions[0]?.value ?? 0)).toBe(25_500_000_000_000_000n);
    const before = await balance('ETH-sandbox', payer);
    const [hash] = await sendAll(
      chain,
      accountOf(chain, 5),
      calldata.transactions as EvmTransaction[],
    );
    const receipt = await chain.client.getTransactionReceipt({ hash: hash as `0x${string}` });
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    // 50 USD at 2,000 USD per ETH: 0.025 ETH spent, the margin back with the payer.
    expect(before - (await balance('ETH-sandbox', payer)) - gas).toBe(25_000_000_000_000_000n);
  });

  it('reverts when the rate moves against the payer past the margin, not within it', async () => {
    const usd = chains.currency('USD')?.hash as Address;
    const usdc = getAddress(chains.currency('USDC-sandbox')?.address as string);
    const snapshot = await chain.snapshot();
    try {
      const within = leg('USD', 'USDC-sandbox', 10_000n);
      const quoted = await buildConversionCalldata(deps, within, {
        wallet: accountOf(chain, 6).address,
      });
      // USDC at 0.99 USD: 1.01 % more USDC for the same dollars, inside the 2 % margin.
      await setSandboxRate(chain, { input: usdc, output: usd }, 99_000_000n);
      await sendAll(chain, accountOf(chain, 6), quoted.transactions as EvmTransaction[]);

      const past = leg('USD', 'USDC-sandbox', 10_000n);
      const stale = await buildConversionCalldata(deps, past, {
        wallet: accountOf(chain, 7).address,
      });
      // USDC at 0.97 USD: 3.1 % more, past it: the proxy refuses to take more than maxToSpend.
      await setSandboxRate(chain, { input: usdc, output: usd }, 97_000_000n);
      await expect(
        sendAll(chain, accountOf(chain, 7), stale.transactions as EvmTransaction[]),
      ).rejects.toThrow();
    } finally {
      await chain.revert(snapshot);
    }
  });

  it('reverts on a rate older than the accepted timespan, and pays at a fresh one', async () => {
    const usd = chains.currency('USD')?.hash as Address;
    const usdc = getAddress(chains.currency('USDC-sandbox')?.address as string);
    const snapshot = await chain.snapshot();
    try {
      // A feed whose last answer is as old as we say (the mock's is always the latest block's).
      const { abi, bytecode } = compileContract(FIXED_FEED, 'FixedFeed');
      const owner = createWalletClient({
        account: accountOf(chain, 0),
        chain: chain.chain,
        transport: custom(chain.provider, { retryCount: 0 }),
      });
      const deploy = async (age: bigint) => {
        const now = (await chain.client.getBlock()).timestamp;
        const receipt = await chain.client.waitForTransactionReceipt({
          hash: await owner.deployContract({ abi, bytecode, args: [100_000_000n, now - age] }),
        });
        return receipt.contractAddress as Address;
      };
      await registerSandboxFeed(
        chain,
        { input: usdc, output: usd },
        await deploy(MAX_RATE_TIMESPAN + 60n),
      );
      const stale = await buildConversionCalldata(deps, leg('USD', 'USDC-sandbox', 10_000n), {
        wallet: accountOf(chain, 6).address,
      });
      await expect(
        sendAll(chain, accountOf(chain, 6), stale.transactions as EvmTransaction[]),
      ).rejects.toThrow();

      await registerSandboxFeed(
        chain,
        { input: usdc, output: usd },
        await deploy(MAX_RATE_TIMESPAN - 60n),
      );
      await pays(leg('USD', 'USDC-sandbox', 10_000n), 6, { payee: 100_000_000n });
    } finally {
      await chain.revert(snapshot);
    }
  });

  it('is found by detection as a payment with its conversion, ERC20 and native alike', async () => {
    const source = createEvmSource({
      network: 'sandbox',
      client: deps.clients.evm('sandbox'),
      contracts: chains.contracts('sandbox'),
    });
    const from = (await chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
    const euros = leg('EUR', 'USDC-sandbox', 10_000n, 500n);
    const dollars = leg('USD', 'ETH-sandbox', 5_000n);
    await pays(euros, 4, { payee: 108_000_000n, fee: 5_400_000n });
    await pays(dollars, 5, { payee: 25_000_000_000_000_000n });
    const events = await source.events(from, await chain.client.getBlockNumber({ cacheTime: 0 }));
    const byTopic = (l: ConversionLeg) =>
      events.filter((e) => e.referenceTopic === referenceTopic(l.paymentReference));
    expect(byTopic(euros)).toEqual([
      expect.objectContaining({
        tokenAddress: getAddress(chains.currency('USDC-sandbox')?.address as string),
        payee: getAddress(euros.payee),
        amount: 108_000_000n,
        feeAmount: 5_400_000n,
        conversion: {
          currency: chains.currency('EUR')?.hash.toLowerCase(),
          amount: 10_000_000_000n,
          feeAmount: 500_000_000n,
          maxRateTimespan: MAX_RATE_TIMESPAN,
          // €100.00 at the sandbox's 1.08 USD, read from the feeds at the payment's block.
          amountInUsd: 10_800_000_000n,
        },
      }),
    ]);
    expect(byTopic(dollars)).toEqual([
      expect.objectContaining({
        tokenAddress: null,
        amount: 25_000_000_000_000_000n,
        conversion: expect.objectContaining({
          currency: chains.currency('USD')?.hash.toLowerCase(),
          amount: 5_000_000_000n,
          amountInUsd: 5_000_000_000n,
        }),
      }),
    ]);
  });
});

const FIXED_FEED = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract FixedFeed {
  int256 public latestAnswer;
  uint256 public latestTimestamp;
  uint8 public decimals = 8;
  constructor(int256 answer, uint256 timestamp) {
    latestAnswer = answer;
    latestTimestamp = timestamp;
  }
}`;
