import type { Page } from 'playwright-core';
import { type Address, decodeFunctionData, getAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientId } from '../../src/auth/client-ids.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { linkClientId } from '../../src/orchestrators/links.ts';
import { createOrchestrator } from '../../src/orchestrators/orchestrators.ts';
import { erc20Abi, erc20FeeProxyAbi } from '../../src/payments/abis.ts';
import { sandboxWallets } from '../../src/sandbox/addresses.ts';
import { screen, sends, text, texts } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWallet, TestWalletSpec } from '../pay-page/wallet.ts';
import type { AtomicSupport } from '../pay-page/wallet-calls.ts';

/**
 * A link with a fee plan paid on the hosted page, in a real Chromium against the local chain
 * with the real Request contracts: the worked example (100 USDC; a payer-borne platform
 * fee of 50 bps capped at 0.40 USD, a payee-borne one of 1 %, the operator's protocol fee of
 * 10 bps). The page shows the payer what they pay, fees included, before paying; a wallet that
 * batches atomically gets the approval, the payee's payment and the three fee legs in one
 * `wallet_sendCalls`, any other wallet gets them one by one in that order. Either way every
 * party moves exactly the plan's amounts, and the receipt lists each fee as paid.
 */

const WALLETS = 16;
const PAYEE = 1;
const addressOf = (index: number): Address =>
  getAddress(sandboxWallets(WALLETS)[index]?.address ?? '');
/** The fee recipients: wallets no payer here uses, so their balances move only by fees. */
const PAYER_FEE = addressOf(13);
const PAYEE_FEE = addressOf(14);
const PROTOCOL = addressOf(15);
const BASE_CHAIN_HEX = '0x2105';

let rig: PayPageRig;
let orchestratorKey: string;
let clientId: string;

beforeAll(async () => {
  rig = await startPayPageRig({
    env: { PROTOCOL_FEE_BPS: '10', PROTOCOL_FEE_EVM_RECIPIENT: PROTOCOL },
  });
  const platform = await createOrchestrator(rig.t.db, 'Fee platform');
  orchestratorKey = platform.orchestratorKey;
  for (const config of [
    { feeBearer: 'payer', bps: 50, usdCap: '0.40', evmRecipientAddress: PAYER_FEE },
    { feeBearer: 'recipient', bps: 100, evmRecipientAddress: PAYEE_FEE },
  ]) {
    const res = await rig.t.app.inject({
      method: 'POST',
      url: '/v2/orchestrators/fee-configs',
      headers: { 'x-orchestrator-key': orchestratorKey },
      payload: { flow: 'incoming', ...config },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  // The merchant's client ID, bound to the payee's USDC destination and linked to the platform.
  const target = resolveTarget(rig.t.chains, {
    walletAddress: rig.wallet(PAYEE).address,
    chainId: 8453,
    tokenAddress: rig.local.chain.addresses.usdc,
  });
  const destination = await activateDestination(
    rig.t.db,
    rig.t.clock,
    rig.tenant.accountId,
    target,
  );
  ({ clientId } = await createClientId(rig.t.db, {
    accountId: rig.tenant.accountId,
    label: 'Platform shop',
    allowedDomains: [],
    payeeDestinationId: destination.destinationId,
  }));
  await linkClientId(rig.t.db, platform.orchestratorId, clientId);
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

/** A 100 USDC link the platform makes for its merchant (paired auth): its plan has three fees. */
async function feeLink(): Promise<string> {
  const res = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/secure-payments',
    headers: { 'x-orchestrator-key': orchestratorKey, 'x-client-id': clientId },
    payload: { requests: [{ amount: '100' }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().feePlan).toMatchObject({
    payerTotalAmountUsd: '100.4',
    payerBorneFeesUsd: '0.4',
    netRecipientAmountUsd: '98.9',
  });
  return res.json().token;
}

const spec = (index: number, atomic?: AtomicSupport): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
  ...(atomic && { atomic }),
});

const asked = (wallet: TestWallet | undefined, method: string) =>
  wallet?.calls.filter((c) => c.method === method) ?? [];

interface Call {
  readonly to: string;
  readonly data: string;
  readonly value: string;
}

/** What `/pay` tells this payer to send, as the page reads it before paying. */
async function transactionsFor(token: string, payer: string): Promise<Call[]> {
  const { status, body } = await rig.get(`/v2/secure-payments/${token}/pay?wallet=${payer}`);
  expect(status).toBe(200);
  return (body.transactions as Call[]).map(({ to, data, value }) => ({ to, data, value }));
}

/** What a call does, read from its calldata: an approval, or a transfer through the fee proxy. */
function decoded(call: { readonly data: string }) {
  const data = call.data as Hex;
  if (data.startsWith('0x095ea7b3')) {
    const { args } = decodeFunctionData({ abi: erc20Abi, data });
    return { approve: args[1] };
  }
  const { args } = decodeFunctionData({ abi: erc20FeeProxyAbi, data });
  return { to: args[1], amount: args[2] };
}

/** The order `/pay` gives: the approval of the whole, the payee's 98.9, then each fee leg. */
const PLAN_ORDER = [
  { approve: 100_400_000n },
  { to: addressOf(PAYEE), amount: 98_900_000n },
  { to: PAYER_FEE, amount: 400_000n },
  { to: PAYEE_FEE, amount: 1_000_000n },
  { to: PROTOCOL, amount: 100_000n },
];

const parties = (payer: number) => ({
  payer: rig.wallet(payer).address,
  payee: rig.wallet(PAYEE).address,
  payerFee: PAYER_FEE,
  payeeFee: PAYEE_FEE,
  protocol: PROTOCOL,
});

async function balances(payer: number): Promise<Record<string, bigint>> {
  const entries = await Promise.all(
    Object.entries(parties(payer)).map(
      async ([name, owner]) => [name, await rig.balance('USDC', owner)] as const,
    ),
  );
  return Object.fromEntries(entries);
}

function moved(before: Record<string, bigint>, after: Record<string, bigint>) {
  return Object.fromEntries(
    Object.keys(before).map((name) => [name, (after[name] ?? 0n) - (before[name] ?? 0n)]),
  );
}

/** Exactly the plan, to the base unit. */
const PLAN_MOVES = {
  payer: -100_400_000n,
  payee: 98_900_000n,
  payerFee: 400_000n,
  payeeFee: 1_000_000n,
  protocol: 100_000n,
};

/** The summary before paying: the amount, the fees, and what the payer sends in all. */
async function payFromSummary(page: Page): Promise<{ fees: string; payerTotal: string }> {
  await screen(page, 'pending');
  const shown = {
    fees: await text(page, '[data-field="fees"]'),
    payerTotal: await text(page, '[data-field="payer-total"]'),
  };
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await screen(page, 'completed');
  return shown;
}

/** Each fee on the receipt as its words read, its state and its own transaction. */
async function receiptFees(page: Page): Promise<string[]> {
  return texts(page, '[data-field="fee"]', 3);
}

const feeLines = (hashes: readonly (string | undefined)[]) => [
  `Platform fee 0.4 USDC, paid by the payerPaid${hashes[0]}`,
  `Platform fee 1 USDC, paid by the payeePaid${hashes[1]}`,
  `Protocol fee 0.1 USDC, paid by the payeePaid${hashes[2]}`,
];

/** The completed link's answer: the payee's transaction, and each fee leg's state. */
async function completed(token: string) {
  const { status, body } = await rig.get(`/v2/secure-payments/${token}`);
  expect(status).toBe(409);
  return {
    paidBy: (body.requestStatuses as { txHash: string }[])[0]?.txHash,
    feeLegs: (body.feeLegs as { status: string; amount: string; txHash: string }[]).map(
      ({ status, amount, txHash }) => ({ status, amount, txHash }),
    ),
  };
}

describe('paying a link with fee legs on the hosted page', () => {
  it('shows what the payer pays with fees, then sends all five calls in one wallet_sendCalls', async () => {
    const payerIndex = 6;
    const token = await feeLink();
    const payer = rig.wallet(payerIndex).address;
    const expected = await transactionsFor(token, payer);
    expect(expected.map(decoded)).toEqual(PLAN_ORDER);
    const before = await balances(payerIndex);
    const { page, wallets, context } = await rig.open(token, [spec(payerIndex, 'supported')]);
    const [wallet] = wallets;

    expect(await payFromSummary(page)).toEqual({
      fees: '1.5 USD',
      payerTotal: '100.4 USDC (incl. fees 0.4 USDC)',
    });
    expect(asked(wallet, 'wallet_sendCalls').map((c) => c.params)).toEqual([
      [
        {
          version: '2.0.0',
          chainId: BASE_CHAIN_HEX,
          from: payer,
          atomicRequired: true,
          calls: expected,
        },
      ],
    ]);
    expect(sends(wallet)).toBe(0);
    const [batch] = wallet?.batches ?? [];
    expect(batch?.status).toBe(200);
    expect(batch?.hashes).toHaveLength(5);
    expect(moved(before, await balances(payerIndex))).toEqual(PLAN_MOVES);

    const hashes = batch?.hashes ?? [];
    expect(await completed(token)).toEqual({
      paidBy: hashes[1],
      feeLegs: [
        { status: 'paid', amount: '0.4', txHash: hashes[2] },
        { status: 'paid', amount: '1', txHash: hashes[3] },
        { status: 'paid', amount: '0.1', txHash: hashes[4] },
      ],
    });
    expect(await receiptFees(page)).toEqual(feeLines(hashes.slice(2)));
    expect(await text(page, '[data-field="tx"]')).toBe(hashes[1]);
    await context.close();
  });

  it('sends approval, payment, then each fee leg with eth_sendTransaction to a wallet without EIP-5792', async () => {
    const payerIndex = 7;
    const token = await feeLink();
    const payer = rig.wallet(payerIndex).address;
    const expected = await transactionsFor(token, payer);
    const before = await balances(payerIndex);
    const { page, wallets, context } = await rig.open(token, [spec(payerIndex)]);
    const [wallet] = wallets;

    expect((await payFromSummary(page)).payerTotal).toBe('100.4 USDC (incl. fees 0.4 USDC)');
    expect(asked(wallet, 'wallet_sendCalls')).toHaveLength(0);
    const sent = asked(wallet, 'eth_sendTransaction').map(
      (c) => (c.params as [{ to: string; data: string }])[0],
    );
    expect(sent.map(decoded)).toEqual(PLAN_ORDER);
    expect(sent.map(({ to, data }) => ({ to, data }))).toEqual(
      expected.map(({ to, data }) => ({ to, data })),
    );
    expect(moved(before, await balances(payerIndex))).toEqual(PLAN_MOVES);

    const hashes = wallet?.sent ?? [];
    expect(hashes).toHaveLength(5);
    expect(await completed(token)).toEqual({
      paidBy: hashes[1],
      feeLegs: [
        { status: 'paid', amount: '0.4', txHash: hashes[2] },
        { status: 'paid', amount: '1', txHash: hashes[3] },
        { status: 'paid', amount: '0.1', txHash: hashes[4] },
      ],
    });
    expect(await receiptFees(page)).toEqual(feeLines(hashes.slice(2)));
    await context.close();
  });
});
