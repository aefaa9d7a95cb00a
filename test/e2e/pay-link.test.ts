import { type Address, getAddress, type Hex, parseAbi, parseEventLogs, zeroAddress } from 'viem';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { erc20FeeProxyAbi, ethFeeProxyAbi } from '../../src/payments/abis.ts';
import { referenceTopic } from '../../src/payments/references.ts';
import type { EvmTransaction } from '../../src/payments/transactions.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, sendAll, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';

/**
 * The heart of the product, end to end: a merchant registers a destination and creates a link
 * over HTTP, a payer asks for calldata, the payer's wallet sends every returned transaction to
 * a local chain running the real Request contracts, and the chain shows the payee paid exactly.
 */

const balanceAbi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address,uint256) returns (bool)',
]);

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let snapshot: Hex;

beforeAll(async () => {
  local = await standIn('base');
  t = await createTestApp({ env: local.env, transports: local.transports });
  tenant = await createTenant(t.db);
});
afterAll(async () => {
  await t.close();
  await local.chain.close();
});
beforeEach(async () => {
  snapshot = await local.chain.snapshot();
});
afterEach(async () => {
  await local.chain.revert(snapshot);
});

const headers = () => ({ 'x-api-key': tenant.apiKey });

/** Registers the wallet's destination through the signed flow, as a payee would. */
async function destination(walletIndex: number, currencyId: string): Promise<string> {
  const currency = t.chains.currency(currencyId);
  if (!currency) throw new Error(currencyId);
  const account = accountOf(local.chain, walletIndex);
  const token =
    currency.type === 'ETH' ? '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE' : currency.address;
  const signing = await t.app.inject({
    method: 'GET',
    url: `/v2/payee-destination/signing-data?walletAddress=${account.address}&action=add&tokenAddress=${token}&chainId=8453`,
    headers: headers(),
  });
  expect(signing.statusCode, signing.body).toBe(200);
  const { typedData, nonce } = signing.json();
  const signature = await account.signTypedData?.({
    ...typedData,
    message: {
      ...typedData.message,
      chainId: BigInt(typedData.message.chainId),
      expiresAt: BigInt(typedData.message.expiresAt),
    },
  });
  const created = await t.app.inject({
    method: 'POST',
    url: '/v2/payee-destination',
    headers: headers(),
    payload: { signature, nonce },
  });
  expect(created.statusCode, created.body).toBe(201);
  return created.json().destinationId;
}

async function createLink(requests: { destinationId: string; amount: string }[]): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: headers(),
    payload: { requests },
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().requestIds).toHaveLength(requests.length);
  return res.json().token;
}

async function calldata(token: string, wallet?: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}/pay${wallet ? `?wallet=${wallet}` : ''}`,
    headers: headers(),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function tokenBalance(token: string, owner: Address): Promise<bigint> {
  return local.chain.client.readContract({
    address: getAddress(token),
    abi: balanceAbi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

async function paymentReferenceOf(token: string): Promise<string[]> {
  const link = await t.app.inject({
    method: 'GET',
    url: `/v2/secure-payments/${token}`,
    headers: headers(),
  });
  const ids: string[] = link.json().requestIds;
  const refs: string[] = [];
  for (const id of ids) {
    const res = await t.app.inject({ method: 'GET', url: `/v2/request/${id}`, headers: headers() });
    refs.push(res.json().paymentReference.slice(2));
  }
  return refs;
}

async function eventsOf(hash: Hex) {
  const receipt = await local.chain.client.getTransactionReceipt({ hash });
  return receipt.logs;
}

describe('paying a single-request link', () => {
  it.each([
    ['USDC-base', '12.5', 12_500_000n, '6 decimals'],
    ['DAI-base', '1.000000000000000001', 1_000_000_000_000_000_001n, '18 decimals'],
    ['USDT-base', '0.000001', 1n, 'no-return transferFrom'],
  ])(
    'moves exactly the amount of %s (%s → %s base units, %s)',
    async (currencyId, amount, units) => {
      const payee = accountOf(local.chain, 1);
      const payer = accountOf(local.chain, 2);
      const token = await createLink([{ destinationId: await destination(1, currencyId), amount }]);
      const currency = t.chains.currency(currencyId);
      const before = await tokenBalance(currency?.address ?? '', payee.address);

      const body = await calldata(token, payer.address);
      expect(body.paymentType).toBe('single');
      expect(body.feeBundle).toBeNull();
      expect(body.metadata).toMatchObject({
        stepsRequired: 2,
        needsApproval: true,
        approvalTransactionIndex: 0,
        paymentTransactionIndex: 1,
        hasEnoughBalance: true,
        hasEnoughAllowance: false,
        hasEnoughGas: true,
        allowance: '0',
        requiredAmount: amount,
      });
      const [hash] = (await sendAll(local.chain, payer, body.transactions)).slice(-1);

      expect((await tokenBalance(currency?.address ?? '', payee.address)) - before).toBe(units);
      const [reference] = await paymentReferenceOf(token);
      const logs = parseEventLogs({ abi: erc20FeeProxyAbi, logs: await eventsOf(hash as Hex) });
      expect(logs).toHaveLength(1);
      expect(logs[0]?.address.toLowerCase()).toBe(
        local.chain.addresses.erc20FeeProxy.toLowerCase(),
      );
      expect(logs[0]?.topics[1]).toBe(referenceTopic(reference ?? ''));
      expect(logs[0]?.args).toMatchObject({ to: payee.address, amount: units, feeAmount: 0n });
    },
  );

  it('pays native currency through EthereumFeeProxy, value included', async () => {
    const payee = accountOf(local.chain, 1);
    const payer = accountOf(local.chain, 2);
    const token = await createLink([
      { destinationId: await destination(1, 'ETH-base'), amount: '0.25' },
    ]);
    const before = await local.chain.client.getBalance({ address: payee.address });
    const body = await calldata(token, payer.address);
    expect(body.transactions).toHaveLength(1);
    expect(body.metadata).toMatchObject({
      needsApproval: false,
      paymentTransactionIndex: 0,
      hasEnoughBalance: true,
    });
    expect(BigInt(body.transactions[0].value)).toBe(250_000_000_000_000_000n);
    const [hash] = await sendAll(local.chain, payer, body.transactions);
    expect((await local.chain.client.getBalance({ address: payee.address })) - before).toBe(
      250_000_000_000_000_000n,
    );
    const [reference] = await paymentReferenceOf(token);
    const logs = parseEventLogs({ abi: ethFeeProxyAbi, logs: await eventsOf(hash as Hex) });
    expect(logs).toHaveLength(1);
    expect(logs[0]?.topics[1]).toBe(referenceTopic(reference ?? ''));
  });

  it('skips the approval when the allowance already covers the amount', async () => {
    const payer = accountOf(local.chain, 2);
    const token = await createLink([
      { destinationId: await destination(1, 'USDC-base'), amount: '5' },
    ]);
    await sendAll(local.chain, payer, [
      {
        to: getAddress(local.chain.addresses.usdc),
        data: (await import('viem')).encodeFunctionData({
          abi: balanceAbi,
          functionName: 'approve',
          args: [local.chain.addresses.erc20FeeProxy, 10_000_000n],
        }),
        value: '0x0',
        chainId: local.chain.chainId,
      },
    ]);
    const body = await calldata(token, payer.address);
    expect(body.transactions).toHaveLength(1);
    expect(body.metadata).toMatchObject({
      stepsRequired: 1,
      needsApproval: false,
      paymentTransactionIndex: 0,
      hasEnoughAllowance: true,
      allowance: '10',
    });
    expect(body.metadata.approvalTransactionIndex).toBeUndefined();
    await sendAll(local.chain, payer, body.transactions);
  });

  it('says so when the payer cannot pay', async () => {
    const broke = '0x000000000000000000000000000000000000dEaD';
    const token = await createLink([
      { destinationId: await destination(1, 'USDC-base'), amount: '5' },
    ]);
    const body = await calldata(token, broke);
    expect(body.metadata).toMatchObject({
      hasEnoughBalance: false,
      hasEnoughGas: false,
      balance: '0',
      nativeBalance: '0',
      needsApproval: true,
    });
  });

  it('returns transactions a wallet can send as they are, even without a wallet', async () => {
    const token = await createLink([
      { destinationId: await destination(1, 'USDC-base'), amount: '3' },
    ]);
    const body = await calldata(token);
    expect(body.metadata).toEqual({
      stepsRequired: 2,
      needsApproval: true,
      approvalTransactionIndex: 0,
      approvalTransactionsCount: 1,
      paymentTransactionIndex: 1,
      transactionSponsorshipFeeUsd: null,
      routeType: 'samechain',
      requiredAmount: '3',
    });
    for (const tx of body.transactions as EvmTransaction[]) {
      expect(tx.to).toBe(getAddress(tx.to));
      expect(tx.value).toMatch(/^0x[0-9a-f]+$/);
      expect(tx.chainId).toBe(8453);
    }
    await sendAll(local.chain, accountOf(local.chain, 3), body.transactions);
  });
});

describe('paying a batch link', () => {
  it('pays three payees in one batchPayments transaction', async () => {
    const payer = accountOf(local.chain, 0);
    const payees = [
      accountOf(local.chain, 1),
      accountOf(local.chain, 3),
      accountOf(local.chain, 4),
    ];
    const token = await createLink([
      { destinationId: await destination(1, 'USDC-base'), amount: '10' },
      { destinationId: await destination(3, 'DAI-base'), amount: '2.5' },
      { destinationId: await destination(4, 'ETH-base'), amount: '0.1' },
    ]);
    const usdc = t.chains.currency('USDC-base')?.address ?? zeroAddress;
    const dai = t.chains.currency('DAI-base')?.address ?? zeroAddress;
    const before = [
      await tokenBalance(usdc, payees[0]?.address ?? zeroAddress),
      await tokenBalance(dai, payees[1]?.address ?? zeroAddress),
      await local.chain.client.getBalance({ address: payees[2]?.address ?? zeroAddress }),
    ];

    const body = await calldata(token, payer.address);
    expect(body.paymentType).toBeUndefined();
    expect(body.ERC20ApprovalTransactions).toHaveLength(2);
    expect(body.metadata).toEqual({
      hasEnoughBalance: true,
      hasEnoughGas: true,
      canMakePayment: true,
      insufficientTokens: [],
      // With no batch fee, exactly the amounts: what the approvals and the value carry.
      spending: [
        expect.objectContaining({
          paymentCurrencyId: 'USDC-base',
          requiredAmount: '10',
          maxToSpend: '10',
        }),
        expect.objectContaining({
          paymentCurrencyId: 'DAI-base',
          requiredAmount: '2.5',
          maxToSpend: '2.5',
        }),
        expect.objectContaining({
          paymentCurrencyId: 'ETH-base',
          requiredAmount: '0.1',
          maxToSpend: '0.1',
        }),
      ],
    });
    expect(body.batchPaymentTransaction.to).toBe(getAddress(local.chain.addresses.batchPayments));
    const hashes = await sendAll(local.chain, payer, [
      ...body.ERC20ApprovalTransactions,
      body.batchPaymentTransaction,
    ]);

    expect((await tokenBalance(usdc, payees[0]?.address ?? zeroAddress)) - (before[0] ?? 0n)).toBe(
      10_000_000n,
    );
    expect((await tokenBalance(dai, payees[1]?.address ?? zeroAddress)) - (before[1] ?? 0n)).toBe(
      2_500_000_000_000_000_000n,
    );
    expect(
      (await local.chain.client.getBalance({ address: payees[2]?.address ?? zeroAddress })) -
        (before[2] ?? 0n),
    ).toBe(100_000_000_000_000_000n);
    const references = await paymentReferenceOf(token);
    const logs = await eventsOf(hashes.at(-1) as Hex);
    const erc20Events = parseEventLogs({ abi: erc20FeeProxyAbi, logs });
    const nativeEvents = parseEventLogs({ abi: ethFeeProxyAbi, logs });
    expect(erc20Events.map((e) => e.topics[1])).toEqual([
      referenceTopic(references[0] ?? ''),
      referenceTopic(references[1] ?? ''),
    ]);
    expect(nativeEvents.map((e) => e.topics[1])).toEqual([referenceTopic(references[2] ?? '')]);
  });

  it('pays two native requests in one batch, one EthereumFeeProxy event each', async () => {
    const payer = accountOf(local.chain, 0);
    const payees = [accountOf(local.chain, 1), accountOf(local.chain, 3)];
    const token = await createLink([
      { destinationId: await destination(1, 'ETH-base'), amount: '0.1' },
      { destinationId: await destination(3, 'ETH-base'), amount: '0.2' },
    ]);
    const balances = () =>
      Promise.all(payees.map(({ address }) => local.chain.client.getBalance({ address })));
    const before = await balances();

    const body = await calldata(token, payer.address);
    expect(body.ERC20ApprovalTransactions).toEqual([]);
    expect(BigInt(body.batchPaymentTransaction.value)).toBe(300_000_000_000_000_000n);
    const [hash] = await sendAll(local.chain, payer, [body.batchPaymentTransaction]);

    const after = await balances();
    expect(after.map((balance, i) => balance - (before[i] ?? 0n))).toEqual([
      100_000_000_000_000_000n,
      200_000_000_000_000_000n,
    ]);
    const references = await paymentReferenceOf(token);
    const events = parseEventLogs({ abi: ethFeeProxyAbi, logs: await eventsOf(hash as Hex) });
    expect(events.map((e) => e.address)).toEqual([
      local.chain.addresses.ethFeeProxy.toLowerCase(),
      local.chain.addresses.ethFeeProxy.toLowerCase(),
    ]);
    expect(events.map((e) => e.topics[1])).toEqual(references.map(referenceTopic));
    // No request carries a fee: a native batch names the zero address, as the SDK does.
    expect(events.map((e) => e.args)).toEqual([
      {
        to: payees[0]?.address,
        amount: 100_000_000_000_000_000n,
        paymentReference: expect.any(String),
        feeAmount: 0n,
        feeAddress: zeroAddress,
      },
      {
        to: payees[1]?.address,
        amount: 200_000_000_000_000_000n,
        paymentReference: expect.any(String),
        feeAmount: 0n,
        feeAddress: zeroAddress,
      },
    ]);
  });

  it('pays two ERC20 requests in one batch, one ERC20FeeProxy event each', async () => {
    const payer = accountOf(local.chain, 0);
    const payees = [accountOf(local.chain, 1), accountOf(local.chain, 3)];
    const token = await createLink([
      { destinationId: await destination(1, 'USDC-base'), amount: '10' },
      { destinationId: await destination(3, 'USDC-base'), amount: '2.5' },
    ]);
    const usdc = local.chain.addresses.usdc;
    const balances = () => Promise.all(payees.map(({ address }) => tokenBalance(usdc, address)));
    const before = await balances();

    const body = await calldata(token, payer.address);
    expect(body.ERC20ApprovalTransactions).toHaveLength(1);
    expect(BigInt(body.batchPaymentTransaction.value)).toBe(0n);
    const hashes = await sendAll(local.chain, payer, [
      ...body.ERC20ApprovalTransactions,
      body.batchPaymentTransaction,
    ]);

    const after = await balances();
    expect(after.map((balance, i) => balance - (before[i] ?? 0n))).toEqual([
      10_000_000n,
      2_500_000n,
    ]);
    const references = await paymentReferenceOf(token);
    const events = parseEventLogs({
      abi: erc20FeeProxyAbi,
      logs: await eventsOf(hashes.at(-1) as Hex),
    });
    expect(events.map((e) => e.address)).toEqual([
      local.chain.addresses.erc20FeeProxy.toLowerCase(),
      local.chain.addresses.erc20FeeProxy.toLowerCase(),
    ]);
    expect(events.map((e) => e.topics[1])).toEqual(references.map(referenceTopic));
    expect(events.map((e) => e.args)).toEqual([
      {
        tokenAddress: getAddress(usdc),
        to: payees[0]?.address,
        amount: 10_000_000n,
        paymentReference: expect.any(String),
        feeAmount: 0n,
        feeAddress: payer.address,
      },
      {
        tokenAddress: getAddress(usdc),
        to: payees[1]?.address,
        amount: 2_500_000n,
        paymentReference: expect.any(String),
        feeAmount: 0n,
        feeAddress: payer.address,
      },
    ]);
  });

  it('lists the tokens the payer lacks', async () => {
    const broke = '0x000000000000000000000000000000000000dEaD';
    const token = await createLink([
      { destinationId: await destination(1, 'USDC-base'), amount: '10' },
      { destinationId: await destination(3, 'USDC-base'), amount: '1' },
    ]);
    const body = await calldata(token, broke);
    expect(body.ERC20ApprovalTransactions).toHaveLength(1);
    expect(body.metadata).toMatchObject({ hasEnoughBalance: false, canMakePayment: false });
    expect(body.metadata.insufficientTokens).toEqual([
      {
        tokenAddress: getAddress(local.chain.addresses.usdc),
        tokenSymbol: 'USDC',
        paymentCurrencyId: 'USDC-base',
        required: '11',
        available: '0',
      },
    ]);
  });
});
