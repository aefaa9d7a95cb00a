import { count, eq } from 'drizzle-orm';
import { decodeFunctionData, getAddress, type Hex } from 'viem';
import { beforeEach, describe, expect, it } from 'vitest';
import { sendAll } from '../../../test/chain.ts';
import {
  apiKey,
  local,
  setupRequestsApp,
  t,
  tenantA,
  validationErrors,
  wallet,
} from '../../../test/requests.ts';
import { evmToTron } from '../../chains/tron-address.ts';
import { recurringPayouts, requests } from '../../db/schema.ts';
import { erc20Abi } from '../../payments/abis.ts';
import { evmTransaction } from '../../payments/transactions.ts';
import { DEADLINE_GRACE_SECONDS } from './schedule-rules.ts';

/**
 * `POST /v2/payouts` with `recurrence` on the real app, the payer's allowance read from a local
 * chain standing in for base (the proxy is base's address; nothing is deployed there, which
 * the allowance read does not need): the approval, the permit's 13 values, the allowance
 * metadata, and every refusal, each writing nothing.
 */

setupRequestsApp();

// Each test's allowance arithmetic counts only its own schedules of the payer.
beforeEach(async () => {
  await t.db.update(recurringPayouts).set({ status: 'cancelled', nextPaymentAt: null });
});

const START = '2026-12-01T09:30:00Z';
const DAY = 86_400;
const USDC = 1_000_000n;

const recurring = (
  extra: Record<string, unknown> = {},
  recurrence: Record<string, unknown> = {},
) => ({
  payee: wallet(1).address,
  amount: '25',
  invoiceCurrency: 'USDC-base',
  paymentCurrency: 'USDC-base',
  recurrence: {
    startDate: START,
    frequency: 'MONTHLY',
    totalPayments: 12,
    payer: wallet(2).address,
    ...recurrence,
  },
  ...extra,
});

const post = (payload: object) =>
  t.app.inject({ method: 'POST', url: '/v2/payouts', headers: apiKey(tenantA), payload });

async function rowCounts() {
  const [schedules] = await t.db.select({ n: count() }).from(recurringPayouts);
  const [made] = await t.db.select({ n: count() }).from(requests);
  return { schedules: schedules?.n, requests: made?.n };
}

const proxy = () => t.chains.contracts('base').recurringPaymentProxy as string;

function approvalOf(transaction: { to: string; data: Hex }) {
  const call = decodeFunctionData({ abi: erc20Abi, data: transaction.data });
  expect(call.functionName).toBe('approve');
  return { token: transaction.to, spender: call.args?.[0], amount: call.args?.[1] };
}

describe('POST /v2/payouts with recurrence', () => {
  it('answers the schedule: the approval for every payment, the permit to sign, the allowance metadata', async () => {
    const res = await post(recurring({ reference: 'payroll-7' }));
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual([
      'id',
      'metadata',
      'payUrl',
      'paymentReference',
      'recurringPaymentPermit',
      'requestId',
      'transactions',
    ]);
    expect(body.transactions).toHaveLength(1);
    expect(body.transactions[0].value).toEqual({ type: 'BigNumber', hex: '0x0' });
    expect(approvalOf(body.transactions[0])).toEqual({
      token: getAddress(local.chain.addresses.usdc),
      spender: getAddress(proxy()),
      amount: 25n * USDC * 12n,
    });
    const firstPayment = Date.parse(START) / 1000;
    // The 12th date is 1 November 2027, at the start's time of day.
    const last = Date.parse('2027-11-01T09:30:00Z') / 1000;
    expect(body.recurringPaymentPermit.domain).toEqual({
      name: 'ERC20RecurringPaymentProxy',
      version: '1',
      chainId: 8453,
      verifyingContract: getAddress(proxy()),
    });
    expect(body.recurringPaymentPermit.types.SchedulePermit).toHaveLength(13);
    const { nonce, ...values } = body.recurringPaymentPermit.values;
    expect(values).toEqual({
      subscriber: wallet(2).address,
      token: getAddress(local.chain.addresses.usdc),
      recipient: wallet(1).address,
      feeAddress: '0x0000000000000000000000000000000000000000',
      amount: (25n * USDC).toString(),
      feeAmount: '0',
      relayerFee: '0',
      periodSeconds: 28 * DAY,
      firstPayment,
      totalPayments: 12,
      deadline: String(last + DEADLINE_GRACE_SECONDS),
      strictOrder: true,
    });
    expect(nonce).toMatch(/^\d{1,78}$/);
    expect(BigInt(nonce)).toBeLessThan(2n ** 256n);
    expect(body.metadata).toEqual({
      stepsRequired: 2,
      totalNeededAllowance: '300',
      currentAllowance: '0',
      additionalAllowanceNeeded: '300',
      existingPaymentsAmount: '0',
    });
    const [row] = await t.db
      .select()
      .from(recurringPayouts)
      .where(eq(recurringPayouts.id, body.id));
    expect(row).toMatchObject({
      status: 'pending',
      accountId: tenantA.accountId,
      reference: 'payroll-7',
    });
    const [first] = await t.db
      .select()
      .from(requests)
      .where(eq(requests.requestId, body.requestId));
    expect(first).toMatchObject({ payer: wallet(2).address, expectedAmount: 25n * USDC });
    expect(`0x${first?.paymentReference}`).toBe(body.paymentReference);
  });

  it('adds the fee to every payment and keeps the allowance the payer’s other schedules need', async () => {
    const first = await post(recurring());
    expect(first.statusCode, first.body).toBe(201);
    const res = await post(
      recurring(
        { amount: '10', feePercentage: '1.5', feeAddress: wallet(4).address },
        { frequency: 'WEEKLY', totalPayments: 4 },
      ),
    );
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.recurringPaymentPermit.values).toMatchObject({
      feeAddress: wallet(4).address,
      amount: '10000000',
      feeAmount: '150000',
      periodSeconds: 7 * DAY,
      totalPayments: 4,
    });
    // 4 × 10.15, plus the 300 of the first schedule.
    expect(approvalOf(body.transactions[0]).amount).toBe(4n * 10_150_000n + 300n * USDC);
    expect(body.metadata).toMatchObject({
      totalNeededAllowance: '340.6',
      existingPaymentsAmount: '300',
      additionalAllowanceNeeded: '340.6',
    });
  });

  it('reads the allowance already granted and leaves the approval out when it is enough', async () => {
    await sendAll(local.chain, wallet(2), [
      evmTransaction(local.chain.addresses.usdc, erc20Abi, 'approve', [proxy(), 100n * USDC], 8453),
    ]);
    const enough = await post(recurring({}, { totalPayments: 2 }));
    expect(enough.statusCode, enough.body).toBe(201);
    expect(enough.json().transactions).toEqual([]);
    expect(enough.json().metadata).toEqual({
      stepsRequired: 1,
      totalNeededAllowance: '50',
      currentAllowance: '100',
      additionalAllowanceNeeded: '0',
      existingPaymentsAmount: '0',
    });
    const short = await post(recurring({ amount: '30' }, { totalPayments: 2 }));
    expect(short.statusCode, short.body).toBe(201);
    expect(approvalOf(short.json().transactions[0]).amount).toBe(110n * USDC);
    expect(short.json().metadata).toEqual({
      stepsRequired: 2,
      totalNeededAllowance: '110',
      currentAllowance: '100',
      additionalAllowanceNeeded: '10',
      existingPaymentsAmount: '50',
    });
  });
});

describe('POST /v2/payouts with recurrence: refusals write nothing', () => {
  const refusals: [
    string,
    Record<string, unknown>,
    string,
    { field: string; message: string }[]?,
  ][] = [
    [
      'a network without the recurring proxy (optimism)',
      { invoiceCurrency: 'USDC-optimism', paymentCurrency: 'USDC-optimism' },
      'Recurring payouts are not available on optimism: the recurring payment contract is not deployed there',
    ],
    [
      'tron',
      { invoiceCurrency: 'USDT-tron', paymentCurrency: 'USDT-tron' },
      'Recurring payouts are not available on tron: the recurring payment contract is not deployed there',
    ],
    [
      'the native currency',
      { invoiceCurrency: 'ETH-base', paymentCurrency: 'ETH-base' },
      'Recurring payouts are paid in an ERC-20 token; ETH-base is the native currency of base',
    ],
    [
      'a fiat invoice',
      { invoiceCurrency: 'USD' },
      'Recurring payouts pay the amount in the token itself: invoiceCurrency must be USDC-base, not USD (a fiat invoice would need a conversion on every payment)',
    ],
  ];
  it.each(refusals)('refuses %s', async (_name, extra, message) => {
    const before = await rowCounts();
    const res = await post(recurring(extra));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ message, code: 'recurring_payout_unsupported' });
    expect(await rowCounts()).toEqual(before);
  });

  const invalid: [string, Record<string, unknown>, Record<string, unknown>, string, string][] = [
    [
      'a start date in the past',
      {},
      { startDate: '2026-11-22T11:54:59Z' },
      'recurrence.startDate',
      'must not be in the past',
    ],
    [
      'a start date with no time zone',
      {},
      { startDate: '2026-12-01T09:30:00' },
      'recurrence.startDate',
      'must be an ISO 8601 date-time with a time zone',
    ],
    ['the payee as payer', {}, { payer: '__payee__' }, 'recurrence.payer', 'must not be the payee'],
    ['a payer that is no EVM address', {}, { payer: '__tron__' }, 'recurrence.payer', ''],
    [
      'a payer wallet that differs from recurrence.payer',
      { payerWallet: '__other__' },
      {},
      'recurrence.payer',
      'names another wallet than the payer wallet of the body; send one of them',
    ],
  ];
  it.each(invalid)('refuses %s', async (_name, extra, recurrence, field, message) => {
    const resolve = (value: unknown) =>
      value === '__payee__'
        ? wallet(1).address
        : value === '__tron__'
          ? evmToTron(wallet(2).address)
          : value === '__other__'
            ? wallet(3).address
            : value;
    const fix = (object: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(object).map(([key, value]) => [key, resolve(value)]));
    const before = await rowCounts();
    const errors = validationErrors(await post(recurring(fix(extra), fix(recurrence))));
    expect(errors.map((error) => error.field)).toEqual([field]);
    if (message !== '') expect(errors[0]?.message).toBe(message);
    expect(await rowCounts()).toEqual(before);
  });

  it('takes a start date of now that reaches us a little late (the test clock: 12:00:00)', async () => {
    const res = await post(recurring({}, { startDate: '2026-11-22T11:59:58.500Z' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().recurringPaymentPermit.values.firstPayment).toBe(
      Date.parse('2026-11-22T11:59:58Z') / 1000,
    );
  });

  it('requires all four recurrence fields and 2 to 255 payments', async () => {
    const before = await rowCounts();
    for (const recurrence of [
      { totalPayments: 1 },
      { totalPayments: 256 },
      { totalPayments: 2.5 },
    ]) {
      const errors = validationErrors(await post(recurring({}, recurrence)));
      expect(errors.map((error) => error.field)).toEqual(['recurrence.totalPayments']);
    }
    for (const missing of ['startDate', 'frequency', 'totalPayments', 'payer']) {
      const body = recurring();
      delete (body.recurrence as Record<string, unknown>)[missing];
      expect(validationErrors(await post(body)).length).toBeGreaterThan(0);
    }
    expect(await rowCounts()).toEqual(before);
  });
});
