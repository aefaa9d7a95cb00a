import {
  type Address,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseAbi,
  parseEventLogs,
  zeroAddress,
} from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChainClients } from '../../src/chains/clients.ts';
import { createChainRegistry } from '../../src/chains/registry.ts';
import { batchPaymentsAbi, erc20FeeProxyAbi, ethFeeProxyAbi } from '../../src/payments/abis.ts';
import { buildBatchCalldata } from '../../src/payments/calldata/batch.ts';
import type { CalldataDeps } from '../../src/payments/calldata/shared.ts';
import { paymentReference, referenceTopic } from '../../src/payments/references.ts';
import type { EvmTransaction, PaymentLeg } from '../../src/payments/transactions.ts';
import { testConfig } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';

/**
 * Batches whose requests carry fees, built by our batch builder and paid on a local chain
 * running the real BatchConversionPayments: every fee reaches the requests' fee address, and
 * each request shows up as its own fee-proxy event naming it. (Links carry no fees yet, so these
 * legs are built here rather than over HTTP; pay-link.test.ts pays fee-less batch links.)
 */

const adminAbi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function setBatchFee(uint16 _batchFee)',
  'function setBatchFeeAmountUSDLimit(uint64 _batchFeeAmountUSDLimit)',
]);

/** An address no test wallet uses, so its balances start at zero. */
const FEE_ADDRESS = getAddress(`0x${'fe'.repeat(20)}`);
const ETH = 10n ** 18n;

let local: StandIn;
let deps: CalldataDeps;
let snapshot: Hex;

beforeAll(async () => {
  local = await standIn('base');
  const config = testConfig(local.env);
  const chains = createChainRegistry(config);
  deps = { chains, clients: createChainClients({ config, chains, transports: local.transports }) };
});
afterAll(async () => {
  await local.chain.close();
});
beforeEach(async () => {
  snapshot = await local.chain.snapshot();
});
afterEach(async () => {
  await local.chain.revert(snapshot);
});

let requests = 0;

function leg(currencyId: string, walletIndex: number, amount: bigint, fee: bigint): PaymentLeg {
  const currency = deps.chains.currency(currencyId);
  const network = deps.chains.network('base');
  if (!currency || !network) throw new Error(`${currencyId} is missing`);
  const payee = accountOf(local.chain, walletIndex).address;
  requests += 1;
  const requestId = `01${requests.toString(16).padStart(64, '0')}`;
  return {
    requestId,
    network,
    currency,
    payee,
    amount,
    paymentReference: paymentReference(requestId, 'a1b2c3d4e5f60718', payee),
    feeAmount: fee,
    feeAddress: fee > 0n ? FEE_ADDRESS : null,
  };
}

async function usdcOf(owner: Address): Promise<bigint> {
  return local.chain.client.readContract({
    address: local.chain.addresses.usdc,
    abi: adminAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

const ethOf = (address: Address) => local.chain.client.getBalance({ address });

/** Pays the legs from wallet 2 through our calldata; the batch transaction's logs. */
async function pay(legs: readonly PaymentLeg[]) {
  const payer = accountOf(local.chain, 2);
  const calldata = await buildBatchCalldata(deps, legs, { wallet: payer.address });
  expect(calldata.metadata.canMakePayment).toBe(true);
  const hashes = await sendAll(local.chain, payer, [
    ...calldata.ERC20ApprovalTransactions,
    calldata.batchPaymentTransaction,
  ]);
  const receipt = await local.chain.client.getTransactionReceipt({ hash: hashes.at(-1) as Hex });
  return { calldata, logs: receipt.logs };
}

/** The batch contract's owner (wallet 0, its deployer) sets a fee the payer must cover. */
async function chargeBatchFee(basisPoints: number) {
  const owner = accountOf(local.chain, 0);
  const call = (data: Hex): EvmTransaction => ({
    to: getAddress(local.chain.addresses.batchPayments),
    data,
    value: '0x0',
    chainId: local.chain.chainId,
  });
  await sendAll(local.chain, owner, [
    call(encodeFunctionData({ abi: adminAbi, functionName: 'setBatchFee', args: [basisPoints] })),
    // With no USD limit the contract zeroes ERC20 batch fees; $150 (8 decimals) lets them through.
    call(
      encodeFunctionData({
        abi: adminAbi,
        functionName: 'setBatchFeeAmountUSDLimit',
        args: [150n * 10n ** 8n],
      }),
    ),
  ]);
}

describe('a batch whose requests carry fees', () => {
  it('pays two ERC20 requests and their fees to the fee address, one event each', async () => {
    const legs = [
      leg('USDC-base', 1, 10_000_000n, 100_000n),
      leg('USDC-base', 3, 2_500_000n, 25_000n),
    ];
    const before = await Promise.all(
      [FEE_ADDRESS, legs[0]?.payee, legs[1]?.payee].map((a) =>
        usdcOf(getAddress(a ?? zeroAddress)),
      ),
    );

    const { logs } = await pay(legs);

    const after = await Promise.all(
      [FEE_ADDRESS, legs[0]?.payee, legs[1]?.payee].map((a) =>
        usdcOf(getAddress(a ?? zeroAddress)),
      ),
    );
    expect(after.map((balance, i) => balance - (before[i] ?? 0n))).toEqual([
      125_000n,
      10_000_000n,
      2_500_000n,
    ]);
    const events = parseEventLogs({ abi: erc20FeeProxyAbi, logs });
    expect(
      events.map((e) => [e.address, e.topics[1], e.args.feeAmount, e.args.feeAddress]),
    ).toEqual(
      legs.map((l) => [
        local.chain.addresses.erc20FeeProxy.toLowerCase(),
        referenceTopic(l.paymentReference),
        l.feeAmount,
        FEE_ADDRESS,
      ]),
    );
  });

  it('pays two native requests and their fees to the fee address, one event each', async () => {
    const legs = [
      leg('ETH-base', 1, ETH / 10n, ETH / 1000n),
      leg('ETH-base', 3, ETH / 5n, ETH / 500n),
    ];
    const before = await Promise.all(
      [FEE_ADDRESS, legs[0]?.payee, legs[1]?.payee].map((a) => ethOf(getAddress(a ?? zeroAddress))),
    );

    const { calldata, logs } = await pay(legs);

    expect(BigInt(calldata.batchPaymentTransaction.value)).toBe(
      ETH / 10n + ETH / 5n + ETH / 1000n + ETH / 500n,
    );
    const after = await Promise.all(
      [FEE_ADDRESS, legs[0]?.payee, legs[1]?.payee].map((a) => ethOf(getAddress(a ?? zeroAddress))),
    );
    expect(after.map((balance, i) => balance - (before[i] ?? 0n))).toEqual([
      ETH / 1000n + ETH / 500n,
      ETH / 10n,
      ETH / 5n,
    ]);
    const events = parseEventLogs({ abi: ethFeeProxyAbi, logs });
    expect(
      events.map((e) => [e.address, e.topics[1], e.args.feeAmount, e.args.feeAddress]),
    ).toEqual(
      legs.map((l) => [
        local.chain.addresses.ethFeeProxy.toLowerCase(),
        referenceTopic(l.paymentReference),
        l.feeAmount,
        FEE_ADDRESS,
      ]),
    );
  });

  it('covers the contract’s batch fee too, which also reaches the fee address', async () => {
    await chargeBatchFee(100);
    const legs = [
      leg('USDC-base', 1, 10_000_000n, 100_000n),
      leg('ETH-base', 3, ETH / 10n, ETH / 1000n),
    ];
    const before = { usdc: await usdcOf(FEE_ADDRESS), eth: await ethOf(FEE_ADDRESS) };

    const { calldata } = await pay(legs);

    // 1 % of the amounts, fees excluded, on top of the requests' own fees.
    expect(calldata.ERC20ApprovalTransactions).toHaveLength(1);
    expect(BigInt(calldata.batchPaymentTransaction.value)).toBe(
      ETH / 10n + ETH / 1000n + ETH / 1000n,
    );
    expect((await usdcOf(FEE_ADDRESS)) - before.usdc).toBe(100_000n + 100_000n);
    expect((await ethOf(FEE_ADDRESS)) - before.eth).toBe(ETH / 1000n + ETH / 1000n);
  });

  it('cannot pay an ERC20 batch to the zero fee address, the reason a fee-less batch names a party', async () => {
    const legs = [leg('USDC-base', 1, 1_000_000n, 0n), leg('USDC-base', 3, 2_000_000n, 0n)];
    const payer = accountOf(local.chain, 2);
    const calldata = await buildBatchCalldata(deps, legs, {});
    await sendAll(local.chain, payer, calldata.ERC20ApprovalTransactions);
    const { to, data } = calldata.batchPaymentTransaction;
    // The same call as Request's SDK sends it, with the zero address as fee address, reverts.
    const call = decodeFunctionData({ abi: batchPaymentsAbi, data });
    const [metaDetails, pathsToUsd] = call.args as readonly [unknown, unknown, unknown];
    const sdkForm = encodeFunctionData({
      abi: batchPaymentsAbi,
      functionName: 'batchPayments',
      args: [metaDetails, pathsToUsd, zeroAddress] as never,
    });
    await expect(
      local.chain.client.call({ account: payer.address, to, data: sdkForm }),
    ).rejects.toThrow(/reverted/);
    // Ours names the first payee without a wallet, and the payer with one: both execute.
    await expect(
      local.chain.client.call({ account: payer.address, to, data }),
    ).resolves.toBeDefined();
    const named = await buildBatchCalldata(deps, legs, { wallet: payer.address });
    await expect(
      local.chain.client.call({
        account: payer.address,
        to,
        data: named.batchPaymentTransaction.data,
      }),
    ).resolves.toBeDefined();
  });
});
