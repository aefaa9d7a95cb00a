import { randomBytes } from 'node:crypto';
import { getAddress, toHex, zeroAddress } from 'viem';
import { feeBasisPoints } from '../../auth/client-id-rules.ts';
import type { Clock } from '../../base/clock.ts';
import { AppError, ValidationError } from '../../base/errors.ts';
import { shortestPeriodSeconds } from '../../base/recurrence.ts';
import type { ChainClients } from '../../chains/clients.ts';
import { isFiat, isNative } from '../../chains/currencies.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { MAX_BASE_UNITS, TOTAL_TOO_LARGE_MESSAGE } from '../../payments/amounts.ts';
import { multicallOf } from '../../payments/calldata/shared.ts';
import { readPayerState } from '../../payments/payer-state.ts';
import { prepareRequest, type RequestCaller } from '../../requests/create.ts';
import { type ClientFee, platformFee } from '../../requests/pay.ts';
import type { PayoutInput } from '../schemas.ts';
import { allowanceMetadata, approvalsFor } from './approval.ts';
import { checkRecurrence, type PayoutRecurrence } from './schedule-rules.ts';
import { committedElsewhere, insertRecurringPayout } from './store.ts';
import { payUrlOf, permitBody, referenceTransaction } from './wire.ts';

/**
 * `POST /v2/payouts` with `recurrence`: a schedule of `totalPayments` equal payments from
 * `payer` to `payee`, which the payer authorises once by signing the proxy's `SchedulePermit`
 * (contracts.md §4) and funds with one ERC-20 approval of the proxy. Checked in full, then the
 * payer's allowance is read (one `eth_call`, `readPayerState`), then the schedule and index 1's
 * request are written together: a refusal or an unreadable chain writes nothing.
 *
 * Permit choices: `periodSeconds` is the frequency's shortest gap (`shortestPeriodSeconds`), so
 * the contract finds every calendar date due (a month is at least 28 days); the executor keeps
 * to the calendar. `deadline` is the last calendar date plus `DEADLINE_GRACE_SECONDS`
 * (`recurrence.ts`), so a schedule paused near its end can still catch up for a year. `strictOrder` is true: indexes
 * are paid in order, as the executor pays them. `relayerFee` is 0: the service pays the gas.
 */

const MAX_UINT128 = 2n ** 128n - 1n;

export interface RecurringDeps {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  readonly clock: Clock;
}

export async function createRecurringPayout(
  deps: RecurringDeps,
  caller: RequestCaller,
  body: PayoutInput & { readonly recurrence: PayoutRecurrence },
  payerWallet: string | undefined,
  client: ClientFee | null,
  payUrl: string,
) {
  const { recurrence } = body;
  const payment = deps.chains.currency(body.paymentCurrency);
  const invoice = deps.chains.currency(body.invoiceCurrency);
  if (payment && invoice && payment.network !== 'fiat') {
    const proxy = deps.chains.network(payment.network)
      ? deps.chains.contracts(payment.network).recurringPaymentProxy
      : null;
    if (proxy === null) {
      throw new AppError(
        'recurring_payout_unsupported',
        `Recurring payouts are not available on ${payment.network}: the recurring payment contract is not deployed there`,
      );
    }
    if (isNative(payment)) {
      throw new AppError(
        'recurring_payout_unsupported',
        `Recurring payouts are paid in an ERC-20 token; ${payment.id} is the native currency of ${payment.network}`,
      );
    }
    if (invoice.id !== payment.id) {
      throw new AppError(
        'recurring_payout_unsupported',
        `Recurring payouts pay the amount in the token itself: invoiceCurrency must be ${payment.id}, not ${invoice.id}${isFiat(invoice) ? ' (a fiat invoice would need a conversion on every payment)' : ''}`,
      );
    }
  }
  // Currencies, payee, amount and the client ID's bound destination, as every payout checks.
  const prepared = await prepareRequest(deps, caller, {
    amount: body.amount,
    invoiceCurrency: body.invoiceCurrency,
    paymentCurrency: body.paymentCurrency,
    ...(body.payee !== undefined && { payee: body.payee }),
    ...(body.reference !== undefined && { reference: body.reference }),
    ...(body.customerInfo !== undefined && { customerInfo: body.customerInfo }),
  });
  const { network, paymentCurrency: currency } = prepared;
  const proxy = getAddress(deps.chains.contracts(network.id).recurringPaymentProxy ?? '');
  const now = deps.clock.now();
  const schedule = checkRecurrence(recurrence, network.chainId, prepared.payee, payerWallet, now);

  const amount = prepared.expectedAmount;
  const fee = feeOf(network.chainId, amount, body, client);
  const relayerFee = 0n;
  const each = amount + (fee?.amount ?? 0n) + relayerFee;
  if (each > MAX_UINT128) {
    throw new ValidationError([
      { field: 'amount', message: 'with the fee, must fit the contract’s uint128 per payment' },
    ]);
  }
  const total = each * BigInt(schedule.totalPayments);
  const token = getAddress(currency.address);
  const key = { network: network.id, proxy, payer: schedule.payer, tokenAddress: token };
  const existing = await committedElsewhere(deps.db, key);
  const needed = total + existing;
  if (needed > MAX_BASE_UNITS) {
    throw new ValidationError([
      { field: 'amount', message: `over all payments, ${TOTAL_TOO_LARGE_MESSAGE}` },
    ]);
  }
  const state = await deps.clients.read(network.id, (chain) =>
    readPayerState(chain, multicallOf(deps, network), {
      funder: schedule.payer,
      owner: schedule.payer,
      tokens: [{ token, spender: proxy }],
    }),
  );
  const allowance = state.tokens.get(token.toLowerCase())?.allowance ?? 0n;

  const { schedule: row, request } = await insertRecurringPayout(
    deps.db,
    {
      accountId: caller.accountId,
      clientIdId: caller.clientId?.id ?? null,
      origin: caller.origin,
      network: network.id,
      chainId: network.chainId,
      currency: currency.id,
      proxy,
      payer: schedule.payer,
      tokenAddress: token,
      payee: getAddress(prepared.payee),
      feeAddress: fee ? getAddress(fee.address) : zeroAddress,
      amount,
      feeAmount: fee?.amount ?? 0n,
      relayerFee,
      periodSeconds: shortestPeriodSeconds(schedule.frequency),
      firstPayment: schedule.firstPayment,
      totalPayments: schedule.totalPayments,
      nonce: BigInt(toHex(randomBytes(32))),
      deadline: schedule.deadline,
      strictOrder: true,
      frequency: schedule.frequency,
      startDate: schedule.startDate,
      reference: prepared.reference ?? null,
      customerInfo: prepared.customerInfo ?? null,
    },
    { ...prepared, payer: schedule.payer },
  );

  const approvals = approvalsFor(
    { tokenAddress: token, proxy, chainId: network.chainId, currency: currency.id },
    allowance,
    needed,
  );
  return {
    id: row.id,
    requestId: request.requestId,
    paymentReference: `0x${request.paymentReference}`,
    transactions: approvals.map(referenceTransaction),
    recurringPaymentPermit: permitBody(row),
    metadata: allowanceMetadata(
      { needed, allowance, existing },
      currency.decimals,
      approvals.length,
    ),
    payUrl: payUrlOf(payUrl, row.payToken),
  };
}

/**
 * The platform fee per payment, as `/pay` computes it: a client ID's own fee overrides the
 * body's (its fee `"0"` lets the body's apply).
 */
function feeOf(
  chainId: number,
  amount: bigint,
  body: Pick<PayoutInput, 'feePercentage' | 'feeAddress'>,
  client: ClientFee | null,
) {
  const overrides =
    client?.feePercentage != null &&
    client.feeAddress !== null &&
    feeBasisPoints(client.feePercentage) !== 0;
  return overrides
    ? platformFee(
        chainId,
        amount,
        client.feePercentage ?? undefined,
        client.feeAddress ?? undefined,
        'the client ID’s fee',
      )
    : platformFee(chainId, amount, body.feePercentage, body.feeAddress);
}
