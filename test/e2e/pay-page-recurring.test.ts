import { eq } from 'drizzle-orm';
import { type Address, getAddress, type Hex, recoverTypedDataAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recurringPayouts } from '../../src/db/schema.ts';
import { erc20Abi } from '../../src/payments/abis.ts';
import { permitOf } from '../../src/payouts/recurring/store.ts';
import { triggerRecurringPayment } from '../../src/payouts/recurring/trigger.ts';
import { sandboxRelayer } from '../../src/sandbox/addresses.ts';
import { sendAll } from '../chain.ts';
import { accessibilityProblems, screen, sends, text } from '../pay-page/page.ts';
import { type PayPageRig, startPayPageRig } from '../pay-page/rig.ts';
import type { TestWallet, TestWalletSpec } from '../pay-page/wallet.ts';
import { mineAt } from '../recurring-proxy.ts';

/**
 * The hosted page of a recurring payout (`payUrl`), in a real Chromium with an injected
 * EIP-6963 wallet, on a local chain standing in for Base with the real Request contracts and
 * the recurring payment proxy: the payer sees the schedule, approves the proxy and signs the
 * permit with `eth_signTypedData_v4`, and the schedule is active (and the contract accepts the
 * signature: the relayer's trigger pays index 1); any other wallet is told so
 * and asked for nothing; a declined signature says so; every other state shows as it stands.
 */

let rig: PayPageRig;

beforeAll(async () => {
  rig = await startPayPageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

const DAY_MS = 86_400_000;
/** Sandbox wallets: payees, then one payer per test, then a stranger. */
const PAYEE = 1;
const PAYER = { signs: 10, refused: 11, declines: 12, states: 13 } as const;
const STRANGER = 14;

const spec = (index: number): TestWalletSpec => ({
  name: 'Test Wallet',
  rdns: 'test.payreq.wallet',
  account: rig.wallet(index),
});

interface Created {
  readonly id: string;
  readonly paymentReference: string;
  readonly payUrl: string;
  readonly transactions: { to: Hex; data: Hex; value: { hex: Hex } }[];
  readonly recurringPaymentPermit: {
    domain: Record<string, unknown>;
    types: { SchedulePermit: unknown };
    values: Record<string, unknown>;
  };
}

/** `POST /v2/payouts` with `recurrence`: `amount` USDC monthly, `total` payments, from `payer`. */
async function createSchedule(payer: number, amount = '7.5', total = 3): Promise<Created> {
  const res = await rig.t.app.inject({
    method: 'POST',
    url: '/v2/payouts',
    headers: { 'x-api-key': rig.tenant.apiKey },
    payload: {
      payee: rig.wallet(PAYEE).address,
      amount,
      invoiceCurrency: 'USDC-base',
      paymentCurrency: 'USDC-base',
      recurrence: {
        startDate: new Date(Date.now() + DAY_MS).toISOString(),
        frequency: 'MONTHLY',
        totalPayments: total,
        payer: rig.wallet(payer).address,
      },
    },
  });
  if (res.statusCode !== 201) throw new Error(`recurring payout: ${res.body}`);
  return res.json();
}

const queryOf = (schedule: Created) => new URL(schedule.payUrl).search.slice(1);

async function allowance(owner: Address): Promise<bigint> {
  const proxy = rig.local.chain.addresses.recurringPaymentProxy;
  return rig.local.chain.client.readContract({
    address: getAddress(rig.local.chain.addresses.usdc),
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner, getAddress(proxy)],
  });
}

async function rowOf(id: string) {
  const [row] = await rig.t.db.select().from(recurringPayouts).where(eq(recurringPayouts.id, id));
  if (!row) throw new Error(`no schedule ${id}`);
  return row;
}

const methodsOf = (wallet: TestWallet | undefined) => wallet?.calls.map((c) => c.method) ?? [];

describe('a recurring payout on the hosted page', () => {
  it('is approved and signed by its payer, and is then active with the allowance on chain', async () => {
    const schedule = await createSchedule(PAYER.signs);
    const payer = rig.wallet(PAYER.signs).address;
    const { page, wallets, context } = await rig.openAt(queryOf(schedule), [spec(PAYER.signs)]);

    await screen(page, 'recurring-pending');
    expect(await text(page, 'h1')).toBe('Approve a recurring payment');
    expect(await text(page, '[data-field="amount"]')).toBe('7.5 USDC');
    expect(await text(page, '[data-field="frequency"]')).toBe('every month');
    expect(await text(page, '[data-field="payments"]')).toBe('3');
    expect(await text(page, '[data-field="total"]')).toBe('22.5 USDC');
    expect(await text(page, '[data-field="payee"]')).toBe(rig.wallet(PAYEE).address);
    expect(await text(page, '[data-field="payer"]')).toBe(payer);
    expect(await text(page, '[data-field="network"]')).toBe('Base');
    const token = new URL(schedule.payUrl).searchParams.get('recurring');
    const view = (await rig.get(`/v2/payouts/recurring/token/${token}`)).body as {
      paymentDates: string[];
    };
    expect(
      await page
        .locator('[data-field="dates"] time')
        .evaluateAll((times) => times.map((time) => time.getAttribute('datetime'))),
    ).toEqual(view.paymentDates);
    expect(await page.locator('[data-field="first-date"] time').getAttribute('datetime')).toBe(
      view.paymentDates[0],
    );
    await page.getByRole('button', { name: 'Approve with Test Wallet' }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'recurring-pending');

    await page.getByRole('button', { name: 'Approve with Test Wallet' }).click();
    await screen(page, 'recurring-active');
    expect(await text(page, 'h1')).toBe('Recurring payment active');
    expect(await text(page, '[data-field="payments"]')).toBe('0 of 3 made');
    expect(await page.locator('[data-field="next-date"] time').getAttribute('datetime')).toBe(
      view.paymentDates[0],
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    await rig.screenshot(page, 'recurring-active');

    // One approval, then the signature over the API's typed data, with the domain's type.
    const wallet = wallets[0];
    expect(sends(wallet)).toBe(1);
    const signing = wallet?.calls.filter((c) => c.method === 'eth_signTypedData_v4') ?? [];
    expect(signing).toHaveLength(1);
    const [address, json] = (signing[0]?.params ?? []) as [string, string];
    expect(address).toBe(payer);
    const permit = schedule.recurringPaymentPermit;
    expect(JSON.parse(json)).toEqual({
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        SchedulePermit: permit.types.SchedulePermit,
      },
      domain: permit.domain,
      primaryType: 'SchedulePermit',
      message: permit.values,
    });

    // The API says active; the chain holds the approval the creation answered; the stored
    // signature is the wallet's, and recovers to the payer over the schedule's permit.
    const status = await rig.get(`/v2/payouts/recurring/${schedule.id}`);
    expect(status.status).toBe(200);
    expect(status.body.status).toBe('active');
    const approved = BigInt(`0x${schedule.transactions[0]?.data.slice(-64)}`);
    expect(approved).toBe(22_500_000n);
    expect(await allowance(payer)).toBe(approved);
    const row = await rowOf(schedule.id);
    expect(row.signature).toBe(wallet?.signed[0]);
    const recovered = await recoverTypedDataAddress({
      ...permitOf(row),
      signature: row.signature as Hex,
    });
    expect(recovered).toBe(payer);

    // And the contract takes it: on the first date, the relayer's trigger of index 1 with the
    // stored signature moves exactly one payment from the payer to the payee.
    const { chain } = rig.local;
    const typed = permitOf(row);
    await mineAt(chain, typed.message.firstPayment);
    const payee = rig.wallet(PAYEE).address;
    const before = [await rig.balance('USDC', payer), await rig.balance('USDC', payee)];
    await sendAll(chain, privateKeyToAccount(sandboxRelayer().privateKey), [
      triggerRecurringPayment({
        chainId: chain.chainId,
        proxy: typed.domain.verifyingContract,
        permit: typed.message,
        signature: row.signature as Hex,
        index: 1,
        paymentReference: schedule.paymentReference.slice(2),
      }),
    ]);
    const after = [await rig.balance('USDC', payer), await rig.balance('USDC', payee)];
    expect(after.map((balance, i) => balance - (before[i] ?? 0n))).toEqual([
      -7_500_000n,
      7_500_000n,
    ]);
    await context.close();
  });

  it('tells another wallet it is not the payer, and asks it for nothing', async () => {
    const schedule = await createSchedule(PAYER.refused);
    const readsBefore = rig.asked('/approval');
    const { page, wallets, context } = await rig.openAt(queryOf(schedule), [spec(STRANGER)]);
    await screen(page, 'recurring-pending');
    await page.getByRole('button', { name: 'Approve with Test Wallet' }).click();
    await screen(page, 'recurring-pending');
    expect(await text(page, '[role="alert"]')).toBe(
      `Only the paying wallet can approve this schedule: ${rig.wallet(PAYER.refused).address}. This wallet is ${rig.wallet(STRANGER).address}. Connect that wallet, then try again.`,
    );
    expect(methodsOf(wallets[0])).toContain('eth_requestAccounts');
    for (const method of [
      'eth_sendTransaction',
      'eth_signTypedData_v4',
      'wallet_switchEthereumChain',
    ]) {
      expect(methodsOf(wallets[0])).not.toContain(method);
    }
    expect(rig.asked('/approval')).toBe(readsBefore);
    expect((await rowOf(schedule.id)).status).toBe('pending');
    await page.getByRole('button', { name: 'Approve with Test Wallet' }).waitFor();
    await context.close();
  });

  it('says a declined signature set nothing up, and signs on the second try; no approval is asked when the allowance is there', async () => {
    const schedule = await createSchedule(PAYER.declines, '2');
    const payer = rig.wallet(PAYER.declines);
    await sendAll(
      rig.local.chain,
      payer,
      schedule.transactions.map((tx) => ({
        to: tx.to,
        data: tx.data,
        value: tx.value.hex,
        chainId: rig.local.chain.chainId,
      })),
    );
    const { page, wallets, context } = await rig.openAt(queryOf(schedule), [spec(PAYER.declines)]);
    const wallet = wallets[0];
    if (!wallet) throw new Error('no wallet');
    wallet.declineNext = 1;
    await screen(page, 'recurring-pending');
    await page.getByRole('button', { name: 'Approve with Test Wallet' }).click();
    await screen(page, 'recurring-pending');
    expect(await text(page, '[role="alert"]')).toBe(
      'You declined to sign in your wallet, so the schedule is not set up and nothing will be paid. You can try again.',
    );
    expect((await rowOf(schedule.id)).status).toBe('pending');

    await page.getByRole('button', { name: 'Approve with Test Wallet' }).click();
    await screen(page, 'recurring-active');
    expect(sends(wallet)).toBe(0);
    expect(wallet.signed).toHaveLength(1);
    expect((await rig.get(`/v2/payouts/recurring/${schedule.id}`)).body.status).toBe('active');
    await context.close();
  });

  it('shows an active, paused, completed or cancelled schedule as it stands, with no wallet to connect', async () => {
    // Dates left: the first six listed, the rest counted; none once the schedule has ended.
    const cases = [
      { status: 'active', title: 'Recurring payment active', processed: 1, total: 9, dates: 7 },
      { status: 'paused', title: 'Recurring payment paused', processed: 1, total: 3, dates: 2 },
      { status: 'completed', title: 'Recurring payment completed', processed: 3, total: 3 },
      { status: 'cancelled', title: 'Recurring payment cancelled', processed: 1, total: 3 },
    ] as const;
    for (const { status, title, processed, total, ...rest } of cases) {
      const schedule = await createSchedule(PAYER.states, '1', total);
      await rig.t.db
        .update(recurringPayouts)
        .set({ status, processedPayments: processed })
        .where(eq(recurringPayouts.id, schedule.id));
      const { page, wallets, context } = await rig.openAt(queryOf(schedule), [spec(PAYER.states)]);
      await screen(page, `recurring-${status}`);
      expect(await text(page, 'h1')).toBe(title);
      expect(await text(page, '[data-field="payments"]')).toBe(`${processed} of ${total} made`);
      const dates = page.locator('[data-field="dates"] li');
      const left = 'dates' in rest ? rest.dates : 0;
      expect(await dates.count()).toBe(Math.min(left, 7));
      if (left > 6) {
        expect(
          ((await dates.last().textContent()) ?? '').startsWith('and 2 more, the last on '),
        ).toBe(true);
      }
      expect(await page.getByRole('button').count()).toBe(0);
      expect(wallets[0]?.calls ?? []).toEqual([]);
      await rig.screenshot(page, `recurring-${status}`);
      await context.close();
    }
  });

  it('says an unknown or truncated pay URL names no payment', async () => {
    for (const query of [`recurring=${'0'.repeat(64)}`, 'recurring=abc123']) {
      const { page, context } = await rig.openAt(query, []);
      await screen(page, 'not_found');
      expect(await text(page, 'h1')).toBe('Payment not found');
      await context.close();
    }
  });
});
