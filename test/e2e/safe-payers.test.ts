import { type Address, getAddress, keccak256, parseAbi, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAFE_1_4_1 } from '../../src/chains/contracts.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import type { Indexer } from '../../src/detection/indexer.ts';
import type { SafeTransaction } from '../../src/payments/safe/safe-transaction.ts';
import { createSafeTracker, type SafeTracker } from '../../src/secure-payments/safe-tracker.ts';
import type { Dispatcher } from '../../src/webhooks/dispatcher.ts';
import { createTestApp, type TestApp } from '../app.ts';
import { accountOf, type StandIn, standIn } from '../chain.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { createSafe, executeSafeTransaction, fundSafe, signSafeTransaction } from '../safe.ts';
import { type Receiver, startReceiver } from '../webhook-receiver.ts';
import { testDispatcher, testIndexer } from '../workers.ts';

/**
 * Safe multisigs paying links on a local chain running the real Request contracts and Safe
 * 1.4.1's published code: `/pay?isSafe=true` answers one Safe transaction, two of three owners
 * sign its `safeTxHash` (one EIP-712, one `eth_sign`), a third executes it, every payee moves
 * exactly its amount, and detection confirms each request with the Safe as `payerAddress` and
 * the executing owner as `payerEoaAddress`. Single links (with a fee leg, in fiat, in ether),
 * batch links and multicall parents. Where the Safe transaction is recorded as the link's
 * intent, the link answers 423 until the tracker sees the execution, and as completed after.
 */

const TOKEN_ABI = parseAbi(['function balanceOf(address) view returns (uint256)']);

let local: StandIn;
let t: TestApp;
let tenant: Tenant;
let receiver: Receiver;
let indexer: Indexer;
let dispatcher: Dispatcher;
let tracker: SafeTracker;
let usdc: Address;

beforeAll(async () => {
  local = await standIn('base', { walletCount: 8 });
  t = await createTestApp({
    env: {
      ...local.env,
      ALLOW_LOCAL_WEBHOOKS: 'true',
      // Every link carries the operator's fee as a leg of its own (payee-borne on a link).
      PROTOCOL_FEE_BPS: '10',
      PROTOCOL_FEE_EVM_RECIPIENT: accountOf(local.chain, 7).address,
    },
    transports: local.transports,
  });
  tenant = await createTenant(t.db);
  receiver = await startReceiver();
  const hook = await call('POST', '/v1/webhook', { url: receiver.url });
  expect(hook.statusCode, hook.body).toBe(201);
  receiver.verifyWith(hook.json().secret);
  indexer = testIndexer(t, { network: 'base', confirmations: 0 });
  dispatcher = testDispatcher(t);
  tracker = createSafeTracker({
    db: t.db,
    clock: t.clock,
    logger: t.app.log as never,
    client: (network) => (network === 'base' ? t.clients.evm('base') : null),
  });
  usdc = getAddress(local.chain.addresses.usdc);
}, 120_000);
afterAll(async () => {
  await tracker?.stop();
  await indexer?.stop();
  await receiver?.close();
  await t?.close();
  await local?.chain.close();
});
// No snapshots reverted: the indexer's checkpoint only moves forward. Each test makes its own
// Safe and measures what its own transactions moved.

const wallet = (index: number) => accountOf(local.chain, index);
const owners = () => [wallet(2), wallet(3), wallet(4)] as const;
const PROTOCOL = () => wallet(7).address;

function call(method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) {
  return t.app.inject({
    method,
    url,
    headers: { 'x-api-key': tenant.apiKey },
    ...(payload && { payload }),
  });
}

/** A payee no test wallet holds, so its balance moves only by this test's payments. */
function payee(seed: string): Address {
  return getAddress(keccak256(toHex(`safe payee ${seed}`)).slice(0, 42));
}

function balanceOf(owner: Address): Promise<bigint> {
  return local.chain.client.readContract({
    address: usdc,
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  });
}

const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

async function destinationOf(address: Address, tokenAddress: string = usdc): Promise<string> {
  const target = resolveTarget(t.chains, { walletAddress: address, chainId: 8453, tokenAddress });
  return (await activateDestination(t.db, t.clock, tenant.accountId, target)).destinationId;
}

/** A 2-of-3 Safe of test wallets 2, 3 and 4 holding 1,000 USDC. */
async function fundedSafe(singleton?: 'safeSingleton'): Promise<Address> {
  const safe = await createSafe(
    local.chain,
    owners().map((owner) => owner.address),
    2,
    singleton,
  );
  await fundSafe(local.chain, wallet(5), usdc, safe, 1_000_000_000n);
  return safe;
}

async function safePay(token: string, safe: Address) {
  const res = await call('GET', `/v2/secure-payments/${token}/pay?isSafe=true&wallet=${safe}`);
  expect(res.statusCode, res.body).toBe(200);
  const viaBody = await call('POST', `/v2/secure-payments/${token}/calldata`, {
    isSafe: 'true',
    wallet: safe,
  });
  expect(viaBody.json()).toEqual(res.json());
  return res.json();
}

/**
 * As the pay page does while owners sign: the Safe transaction is recorded as the link's
 * intent, and the link (its display and its calldata) answers 423 until tracking ends.
 */
async function recordSafeIntent(token: string, safeTx: SafeTransaction) {
  const res = await call('POST', `/v2/secure-payments/${token}/intent`, {
    chain: 'BASE',
    token: 'USDC',
    safeTxHash: safeTx.safeTxHash,
  });
  expect(res.statusCode, res.body).toBe(200);
  for (const path of ['', `/pay?isSafe=true&wallet=${safeTx.safeAddress}`]) {
    const locked = await call('GET', `/v2/secure-payments/${token}${path}`);
    expect(locked.statusCode, path).toBe(423);
    const body = locked.json();
    expect(body).toMatchObject({ code: 'secure_payment_in_progress', status: 'pending' });
    // The owners still to sign get the transaction itself.
    expect(body.safeTransaction).toEqual(safeTx);
    for (const each of body.requestStatuses) {
      expect(each).toMatchObject({ hasBeenPaid: false, safeTxHash: safeTx.safeTxHash });
    }
  }
}

/** Owners 4 (EIP-712) and 2 (`eth_sign`) sign, owner 3 executes. */
async function signAndExecute(safeTx: SafeTransaction) {
  const [second, third, fourth] = owners();
  const signatures = [
    await signSafeTransaction(fourth, safeTx, 'typed'),
    await signSafeTransaction(second, safeTx, 'eth_sign'),
  ];
  return executeSafeTransaction(local.chain, third, safeTx, signatures);
}

/**
 * Executes a recorded Safe transaction: the link stays locked until the tracker sees the
 * execution, and answers again (not yet paid: detection has not run) once it has.
 */
async function executeTracked(token: string, safeTx: SafeTransaction) {
  const txHash = await signAndExecute(safeTx);
  expect((await call('GET', `/v2/secure-payments/${token}`)).statusCode).toBe(423);
  await tracker.round();
  const display = await call('GET', `/v2/secure-payments/${token}`);
  expect(display.statusCode, display.body).toBe(200);
  return txHash;
}

/** Tracking has ended and the payment is detected: the link answers as completed, not 423. */
async function expectCompleted(token: string) {
  const res = await call('GET', `/v2/secure-payments/${token}`);
  expect(res.statusCode, res.body).toBe(409);
}

/** Reads the chain, sends the outbox, and returns the `payment.confirmed` bodies received. */
async function confirmations(requestIds: readonly string[]): Promise<Record<string, unknown>[]> {
  await indexer.tick();
  const deadline = Date.now() + 60_000;
  for (;;) {
    await dispatcher.runOnce();
    const confirmed = receiver.received
      .map((r) => r.body)
      .filter((b) => b.event === 'payment.confirmed' && requestIds.includes(String(b.requestId)));
    if (confirmed.length >= requestIds.length || Date.now() > deadline) return confirmed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every request paid, each once, by the Safe, its owner 3 having sent the transaction. */
async function expectPaidBySafe(requestIds: readonly string[], safe: Address, txHash: string) {
  const confirmed = await confirmations(requestIds);
  expect(confirmed).toHaveLength(requestIds.length);
  for (const body of confirmed) {
    expect(body).toMatchObject({
      txHash,
      payerAddress: safe,
      payerEoaAddress: wallet(3).address,
    });
  }
  for (const requestId of requestIds) {
    const status = await call('GET', `/v2/request/${requestId}`);
    expect(status.json()).toMatchObject({
      hasBeenPaid: true,
      txHash,
      payerAddress: safe,
      payerEoaAddress: wallet(3).address,
    });
  }
}

describe('a Safe paying a single-request link', () => {
  it('signs and executes the one Safe transaction /pay answers; the payee gets the exact amount', async () => {
    const safe = await fundedSafe();
    const to = payee('single');
    const created = await call('POST', '/v2/secure-payments', {
      requests: [{ destinationId: await destinationOf(to), amount: '12.345678' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const { token, requestIds } = created.json();
    const { expiresAt } = (await call('GET', `/v2/secure-payments/${token}`)).json();

    const answer = await safePay(token, safe);
    // The protocol's 10 bps of 12.345678 USDC, paid from the payee's share as a leg of its own.
    const fee = 12_345n;
    expect(answer).toMatchObject({
      paymentType: 'single',
      transactions: [
        { to: SAFE_1_4_1.multiSendCallOnly, value: '0x0', chainId: 8453, chainType: 'evm' },
      ],
      feeBundle: { fees: [{ feeType: 'protocol_fee', amount: '0.012345', recipient: PROTOCOL() }] },
      metadata: {
        stepsRequired: 1,
        needsApproval: true,
        paymentTransactionIndex: 0,
        requiredAmount: '12.345678',
        hasEnoughBalance: true,
        hasEnoughAllowance: false,
        balance: '1000',
        allowance: '0',
        safePaymentDeadline: Math.floor(Date.parse(expiresAt) / 1000),
      },
      safeTransaction: {
        safeAddress: safe,
        chainId: 8453,
        to: SAFE_1_4_1.multiSendCallOnly,
        value: '0',
        operation: 1,
        nonce: '0',
        threshold: 2,
        owners: owners().map((owner) => owner.address),
      },
    });
    expect(answer.metadata).not.toHaveProperty('hasEnoughGas');
    expect(answer.metadata).not.toHaveProperty('approvalTransactionIndex');
    const safeTx: SafeTransaction = answer.safeTransaction;
    expect(answer.transactions[0].data).toBe(safeTx.data);
    // Approval, payment, fee leg: what a wallet would send, made by the Safe in one go.
    expect(safeTx.calls.map((c) => [c.to, c.data.slice(0, 10)])).toEqual([
      [usdc, '0x095ea7b3'],
      [getAddress(local.chain.addresses.erc20FeeProxy), '0xc219a14d'],
      [getAddress(local.chain.addresses.erc20FeeProxy), '0xc219a14d'],
    ]);

    const before = {
      payee: await balanceOf(to),
      safe: await balanceOf(safe),
      fee: await balanceOf(PROTOCOL()),
    };
    await recordSafeIntent(token, safeTx);
    const txHash = await executeTracked(token, safeTx);
    expect(await balanceOf(to)).toBe(before.payee + 12_345_678n - fee);
    expect(await balanceOf(PROTOCOL())).toBe(before.fee + fee);
    expect(await balanceOf(safe)).toBe(before.safe - 12_345_678n);
    await expectPaidBySafe(requestIds, safe, txHash);
    const status = await call('GET', `/v2/request/${requestIds[0]}`);
    expect(status.json().fees).toContainEqual(
      expect.objectContaining({
        feeType: 'protocol_fee',
        amount: '0.012345',
        status: 'paid',
        txHash,
      }),
    );
    await expectCompleted(token);
  });

  it('answers 400 not_a_safe for a wallet that is no Safe', async () => {
    const created = await call('POST', '/v2/secure-payments', {
      requests: [{ destinationId: await destinationOf(payee('refused')), amount: '1' }],
    });
    const eoa = wallet(5).address;
    const res = await call(
      'GET',
      `/v2/secure-payments/${created.json().token}/pay?isSafe=true&wallet=${eoa}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'not_a_safe',
      message: `${eoa} is not a Safe (1.3.0 or later) on base`,
    });
  });
});

describe('a Safe paying in fiat and in ether', () => {
  it('pays a USD link in USDC at the on-chain rate', async () => {
    const safe = await fundedSafe();
    const to = payee('fiat');
    const created = await call('POST', '/v2/secure-payments', {
      requests: [{ destinationId: await destinationOf(to), amount: '25', invoiceCurrency: 'USD' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const { token, requestIds } = created.json();
    const answer = await safePay(token, safe);
    expect(answer.metadata).toMatchObject({ conversionRate: '1', hasEnoughBalance: true });
    const before = await balanceOf(to);
    const txHash = await signAndExecute(answer.safeTransaction);
    // 25 USD at 1 USD per USDC (a link in fiat carries no fee plan, so no fee leg).
    expect(answer.feeBundle).toBeNull();
    expect((await balanceOf(to)) - before).toBe(25_000_000n);
    await expectPaidBySafe(requestIds, safe, txHash);
  });

  it('pays an ETH link from the Safe’s own ether, the value carried by the packed call', async () => {
    const safe = await fundedSafe();
    await local.chain.provider.request({
      method: 'hardhat_setBalance',
      params: [safe, toHex(10n ** 18n)],
    });
    const to = payee('ether');
    const created = await call('POST', '/v2/secure-payments', {
      requests: [{ destinationId: await destinationOf(to, NATIVE), amount: '0.25' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const { token, requestIds } = created.json();
    const answer = await safePay(token, safe);
    expect(answer).toMatchObject({
      metadata: { hasEnoughBalance: true, balance: '1' },
      safeTransaction: { value: '0', calls: [{ value: toHex(25n * 10n ** 16n) }] },
    });
    const before = await local.chain.client.getBalance({ address: to });
    const txHash = await signAndExecute(answer.safeTransaction);
    expect((await local.chain.client.getBalance({ address: to })) - before).toBe(25n * 10n ** 16n);
    expect(await local.chain.client.getBalance({ address: safe })).toBe(75n * 10n ** 16n);
    await expectPaidBySafe(requestIds, safe, txHash);
  });
});

describe('a Safe paying a batch link', () => {
  it('pays every request in one Safe transaction (the L1 singleton), each exact', async () => {
    const safe = await fundedSafe('safeSingleton');
    const payees = [payee('batch 1'), payee('batch 2')] as const;
    const created = await call('POST', '/v2/secure-payments', {
      requests: [
        { destinationId: await destinationOf(payees[0]), amount: '3.5' },
        { destinationId: await destinationOf(payees[1]), amount: '0.000001' },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const { token, requestIds } = created.json();

    const answer = await safePay(token, safe);
    expect(answer).toMatchObject({
      ERC20ApprovalTransactions: [],
      batchPaymentTransaction: { to: SAFE_1_4_1.multiSendCallOnly, value: '0x0' },
      metadata: { hasEnoughBalance: true, hasEnoughGas: null, canMakePayment: true },
      safeTransaction: { safeAddress: safe, nonce: '0', threshold: 2 },
    });
    const safeTx: SafeTransaction = answer.safeTransaction;
    expect(safeTx.calls.map((c) => c.to)).toEqual([
      usdc,
      getAddress(local.chain.addresses.batchPayments),
    ]);

    const before = await Promise.all(payees.map(balanceOf));
    await recordSafeIntent(token, safeTx);
    const txHash = await executeTracked(token, safeTx);
    const after = await Promise.all(payees.map(balanceOf));
    expect(after.map((b, i) => b - (before[i] ?? 0n))).toEqual([3_500_000n, 1n]);
    await expectPaidBySafe(requestIds, safe, txHash);
    await expectCompleted(token);
  });
});

describe('a Safe paying a multicall parent', () => {
  it('pays every child payout in one Safe transaction, each recipient exact', async () => {
    const safe = await fundedSafe();
    const recipients = [payee('child 1'), payee('child 2')];
    const children = [];
    for (const [i, recipient] of recipients.entries()) {
      const res = await call('POST', '/v2/secure-payments/payouts', {
        recipient,
        creatorWalletAddress: safe,
        network: 'base',
        currency: 'USDC-base',
        amount: `${i + 1}.25`,
      });
      expect(res.statusCode, res.body).toBe(201);
      children.push(res.json() as { token: string; requestIds: string[] });
    }
    const parent = await call('POST', '/v2/secure-payments/multicall-payouts', {
      childTokens: children.map((c) => c.token),
    });
    expect(parent.statusCode, parent.body).toBe(201);

    const answer = await safePay(parent.json().token, safe);
    expect(answer).toMatchObject({
      paymentType: 'multicall',
      transactions: [{ to: SAFE_1_4_1.multiSendCallOnly }],
      ERC20ApprovalTransactions: [],
      batchPaymentTransaction: { to: SAFE_1_4_1.multiSendCallOnly },
      metadata: {
        stepsRequired: 1,
        paymentTransactionIndex: 0,
        approvalTransactionIndices: [],
        batchPaymentTransactionIndex: 0,
        hasEnoughGas: null,
        hasEnoughBalance: true,
      },
      safeTransaction: { safeAddress: safe, threshold: 2 },
    });

    const before = await Promise.all(recipients.map(balanceOf));
    await recordSafeIntent(parent.json().token, answer.safeTransaction);
    const txHash = await executeTracked(parent.json().token, answer.safeTransaction);
    const after = await Promise.all(recipients.map(balanceOf));
    expect(after.map((b, i) => b - (before[i] ?? 0n))).toEqual([1_250_000n, 2_250_000n]);
    await expectPaidBySafe(
      children.map((c) => c.requestIds[0] ?? ''),
      safe,
      txHash,
    );
    await expectCompleted(parent.json().token);
  });
});
