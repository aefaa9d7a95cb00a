import { and, eq, sql } from 'drizzle-orm';
import {
  type Address,
  getAddress,
  isAddress,
  parseEventLogs,
  TransactionReceiptNotFoundError,
} from 'viem';
import { isoFromSeconds } from '../base/dates.ts';
import { AppError, ValidationError } from '../base/errors.ts';
import { isPayToken } from '../base/ids.ts';
import type { Database } from '../db/client.ts';
import { commerceActions, commerceEvents, commercePayments } from '../db/schema.ts';
import type { LinkScope } from '../http/principal.ts';
import { erc20Abi } from '../payments/abis.ts';
import { formatAmount } from '../payments/amounts.ts';
import { commerceWrapperAbi } from '../payments/commerce/abi.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import { decimalsOf } from './actions.ts';
import { approveWrapperTransaction } from './calldata/approve-wrapper.ts';
import { authorizeTransaction } from './calldata/authorize.ts';
import type { CommerceDeps } from './deps.ts';
import { checkAuthorize } from './limits.ts';
import { type CommercePaymentRow, isOurAuthorization, referenceOf } from './payment.ts';
import { commerceNotFound, type LoadedPayment, loadState } from './store.ts';
import { canReclaim } from './view.ts';
import { wrapperOperator } from './wrapper-operator.ts';

/**
 * A commerce payment as its buyer reaches it, by its pay token (`PAY_URL/?commerce=<payToken>`):
 * what is held and until when, the transactions the buyer's wallet sends, and the buyer's word
 * that it sent them (checked against the chain's receipt).
 */

/** The payment of a pay token, in the caller's scope (the pay page's reaches any account's). */
export async function findByPayToken(
  db: Database,
  scope: LinkScope,
  token: string,
): Promise<CommercePaymentRow> {
  if (!isPayToken(token)) throw commerceNotFound();
  const [row] = await db
    .select()
    .from(commercePayments)
    .where(
      and(
        eq(commercePayments.payToken, token),
        'accountId' in scope ? eq(commercePayments.accountId, scope.accountId) : undefined,
      ),
    );
  if (!row) throw commerceNotFound();
  return row;
}

/** `GET /v2/commerce-payments/token/{payToken}`: what the buyer's page shows. */
export function buyerView(deps: Pick<CommerceDeps, 'chains'>, loaded: LoadedPayment) {
  const { payment, state } = loaded;
  const decimals = decimalsOf(deps.chains, payment);
  const amount = (value: bigint) => formatAmount(value, decimals);
  return {
    requestId: payment.requestId,
    status: state.status,
    network: payment.network,
    chainId: payment.chainId,
    currency: payment.currency,
    token: payment.tokenAddress,
    decimals,
    amount: amount(payment.amount),
    maxAmount: amount(payment.maxAmount),
    heldAmount: amount(state.held),
    capturedAmount: amount(state.captured),
    refundedAmount: amount(state.refunded),
    canReclaim: canReclaim(loaded),
    merchant: payment.merchant,
    merchantId: payment.merchantId,
    buyer: payment.payer,
    preApprovalExpiry: isoFromSeconds(payment.preApprovalExpiry),
    authorizationExpiry: isoFromSeconds(payment.authorizationExpiry),
    refundExpiry: isoFromSeconds(payment.refundExpiry),
  };
}

/** The `wallet` of a buyer's query: an EVM address (400 otherwise). */
export function connectedWallet(wallet: string | undefined): Address {
  if (wallet === undefined || !isAddress(wallet, { strict: false })) {
    throw new ValidationError([{ field: 'wallet', message: 'must be an EVM address' }]);
  }
  return getAddress(wallet);
}

/** The wallet a buyer connected, checked against the buyer the payment names (if any). */
function buyerWallet(payment: CommercePaymentRow, wallet: string | undefined): Address {
  const address = connectedWallet(wallet);
  if (payment.payer !== null && payment.payer.toLowerCase() !== address.toLowerCase()) {
    throw new AppError(
      'commerce_buyer_mismatch',
      `Only the buyer this payment names can authorize it: ${getAddress(payment.payer)}, not ${address}`,
    );
  }
  return address;
}

/**
 * `GET /v2/commerce-payments/token/{payToken}/authorize?wallet=`: the buyer's approval of the
 * wrapper (only when the allowance is short of the amount), then `authorizePayment` naming that
 * wallet as the payer. Nothing is written: the buyer is recorded once its authorization is seen.
 */
export async function buyerTransactions(
  deps: CommerceDeps,
  payment: CommercePaymentRow,
  wallet: string | undefined,
): Promise<EvmTransaction[]> {
  const payer = buyerWallet(payment, wallet);
  const now = await deps.chainTime.now(payment.network);
  const loaded = await loadState(deps.db, payment, now);
  const named = { ...payment, payer };
  checkAuthorize(named, loaded.state, now);
  const allowance = await deps.clients.read(payment.network, (client) =>
    client.readContract({
      address: getAddress(payment.tokenAddress),
      abi: erc20Abi,
      functionName: 'allowance',
      args: [payer, getAddress(payment.wrapper)],
    }),
  );
  const authorize = authorizeTransaction(named);
  return allowance >= payment.amount
    ? [authorize]
    : [approveWrapperTransaction(payment, payment.amount), authorize];
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * `POST /v2/commerce-payments/token/{payToken}/authorization`: the buyer's page says it sent
 * `authorizePayment`; the receipt must hold the wrapper's `PaymentAuthorized` of this payment.
 * Recorded as a confirmed authorization (counted until detection records its event, as the
 * execute operations' are), and the buyer and the escrow's hash learnt as detection learns
 * them: only where the row has none. Sending the same hash again changes nothing.
 */
export async function recordBuyerAuthorization(
  deps: CommerceDeps,
  payment: CommercePaymentRow,
  txHash: string,
): Promise<void> {
  if (!TX_HASH.test(txHash)) {
    throw new ValidationError([{ field: 'txHash', message: 'must be a transaction hash' }]);
  }
  const hash = txHash.toLowerCase() as `0x${string}`;
  const receipt = await deps.clients.read(payment.network, (client) =>
    client.getTransactionReceipt({ hash }).catch((error: unknown) => {
      // Not mined (or unknown): no authorization; anything else is the RPC's failure.
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }),
  );
  const announced =
    receipt?.status === 'success'
      ? parseEventLogs({
          abi: commerceWrapperAbi,
          logs: receipt.logs,
          eventName: 'PaymentAuthorized',
        }).find(
          (log) =>
            log.address.toLowerCase() === payment.wrapper.toLowerCase() &&
            log.args.paymentReference.toLowerCase() ===
              `0x${payment.paymentReference}`.toLowerCase(),
        )
      : undefined;
  const operator = announced
    ? await deps.clients.read(payment.network, (client) =>
        wrapperOperator(client, payment.wrapper, referenceOf(payment)),
      )
    : null;
  const authorized =
    announced && isOurAuthorization(payment, announced.args, operator) ? announced : undefined;
  if (!authorized) {
    throw new ValidationError([
      {
        field: 'txHash',
        message: `is not a successful authorization of this payment on ${payment.network}`,
      },
    ]);
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(commercePayments)
      .where(eq(commercePayments.id, payment.id))
      .for('update');
    if (!row) throw commerceNotFound();
    const sameTx = (table: typeof commerceActions | typeof commerceEvents) =>
      and(eq(table.commercePaymentId, row.id), eq(table.txHash, hash));
    const acted = await tx
      .select({ id: commerceActions.id })
      .from(commerceActions)
      .where(sameTx(commerceActions));
    const seen = await tx
      .select({ id: commerceEvents.id })
      .from(commerceEvents)
      .where(sameTx(commerceEvents));
    const known = [...acted, ...seen];
    if (known.length > 0) return;
    await tx.insert(commerceActions).values({
      commercePaymentId: row.id,
      kind: 'authorize',
      amount: authorized.args.amount,
      status: 'confirmed',
      txHash: hash,
      createdAt: now,
      endedAt: now,
    });
    await tx
      .update(commercePayments)
      .set({
        payer: sql`coalesce(${commercePayments.payer}, ${getAddress(authorized.args.payer)})`,
        commercePaymentHash: sql`coalesce(${commercePayments.commercePaymentHash}, ${authorized.args.commercePaymentHash})`,
        updatedAt: now,
      })
      .where(eq(commercePayments.id, row.id));
  });
}
