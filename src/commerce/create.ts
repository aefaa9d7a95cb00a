import { type Address, getAddress, type Hex } from 'viem';
import { AppError, ValidationError } from '../base/errors.ts';
import { newPayToken } from '../base/ids.ts';
import type { Currency } from '../chains/currencies.ts';
import type { Network } from '../chains/networks.ts';
import { commercePayments, requests } from '../db/schema.ts';
import { commercePaymentHash, wrapperPaymentInfo } from '../payments/commerce/payment-info.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import type { RequestCaller } from '../requests/create.ts';
import { walletOf } from '../requests/create.ts';
import { requestValues } from '../requests/requests.ts';
import { approveWrapperTransaction } from './calldata/approve-wrapper.ts';
import { authorizeTransaction, preApproveTransaction } from './calldata/authorize.ts';
import type { CommerceDeps } from './deps.ts';
import { resolveExpiries } from './expiries.ts';
import { commerceAmount } from './limits.ts';
import { operatorFor } from './operator.ts';
import type { CommercePaymentRow } from './payment.ts';

export interface AuthorizeCalldataInput {
  readonly merchantId: string;
  readonly merchantAddress: string;
  readonly buyerAddress?: string | undefined;
  readonly amount: string;
  readonly paymentCurrency: string;
  readonly maxAmount?: string | undefined;
  readonly preApprovalExpiry?: number | undefined;
  readonly authorizationExpiry?: number | undefined;
  readonly refundExpiry?: number | undefined;
}

export interface AuthorizeCalldata {
  readonly payment: CommercePaymentRow;
  /**
   * What the buyer sends: the approval of the wrapper, then `preApproveAuthorization` of the
   * payment's terms; none without a buyer.
   */
  readonly transactions: readonly EvmTransaction[];
  /** `authorizePayment` (what `/authorize` sends as the operator); null without a buyer. */
  readonly authorize: EvmTransaction | null;
}

/** Where commerce payments run on a network: its wrapper, escrow and both collectors. */
interface CommerceContracts {
  readonly wrapper: Address;
  readonly escrow: Address;
  readonly preApprovalCollector: Address;
  readonly refundCollector: Address;
}

function commerceContracts(
  deps: Pick<CommerceDeps, 'chains'>,
  network: Network,
): CommerceContracts {
  const c = deps.chains.contracts(network.id);
  if (
    !c.commerceEscrowWrapper ||
    !c.authCaptureEscrow ||
    !c.preApprovalPaymentCollector ||
    !c.operatorRefundCollector
  ) {
    throw new AppError(
      'commerce_unavailable',
      `Commerce payments are not available on ${network.id}: it has no commerce escrow wrapper, escrow and token collectors`,
    );
  }
  return {
    wrapper: getAddress(c.commerceEscrowWrapper),
    escrow: getAddress(c.authCaptureEscrow),
    preApprovalCollector: getAddress(c.preApprovalPaymentCollector),
    refundCollector: getAddress(c.operatorRefundCollector),
  };
}

function tokenOf(
  deps: Pick<CommerceDeps, 'chains'>,
  id: string,
): { currency: Currency; network: Network } {
  const currency = deps.chains.currency(id);
  const network = currency ? deps.chains.network(currency.network) : undefined;
  if (!currency || !network || network.kind !== 'evm' || currency.type !== 'ERC20') {
    throw new ValidationError([
      { field: 'paymentCurrency', message: 'is not a supported ERC20 token currency id' },
    ]);
  }
  return { currency, network };
}

/**
 * `POST /v2/commerce-payments/authorize/calldata`: checks the body, resolves the expiries and
 * the operator, and writes the payment's request (payee the merchant; its payment reference is
 * the wrapper's key) and the payment itself, together.
 */
export async function createAuthorizeCalldata(
  deps: CommerceDeps,
  caller: RequestCaller,
  body: AuthorizeCalldataInput,
): Promise<AuthorizeCalldata> {
  const { currency, network } = tokenOf(deps, body.paymentCurrency);
  const contracts = commerceContracts(deps, network);
  const merchant = walletOf(body.merchantAddress, network.chainId, 'merchantAddress');
  const payer =
    body.buyerAddress === undefined
      ? null
      : walletOf(body.buyerAddress, network.chainId, 'buyerAddress');
  const amount = commerceAmount('amount', body.amount, currency.decimals);
  const maxAmount =
    body.maxAmount === undefined
      ? amount
      : commerceAmount('maxAmount', body.maxAmount, currency.decimals);
  if (maxAmount < amount) {
    throw new ValidationError([{ field: 'maxAmount', message: 'must be at least amount' }]);
  }
  // Expiries are the escrow's: counted from its chain's time (chain-time.ts).
  const now = await deps.chainTime.now(network.id);
  const expiries = resolveExpiries(body, caller.clientId, now);
  const operator = operatorFor(caller.clientId, deps.operator(network.id));

  const request = requestValues({
    accountId: caller.accountId,
    clientIdId: caller.clientId?.id ?? null,
    network,
    invoiceCurrency: currency,
    paymentCurrency: currency,
    expectedAmount: amount,
    payee: merchant,
    payer,
    origin: caller.origin,
  });
  const reference: Hex = `0x${request.paymentReference}`;
  // The escrow's hash of the terms, the buyer aside (the wrapper is the escrow's payer): what
  // an authorization must carry to be this payment's (payment.ts, isOurAuthorization).
  const hash = commercePaymentHash(
    network.chainId,
    contracts.escrow,
    wrapperPaymentInfo({
      wrapper: contracts.wrapper,
      token: getAddress(currency.address),
      maxAmount,
      ...expiries,
      paymentReference: reference,
    }),
  );
  const payment = await deps.db.transaction(async (tx) => {
    await tx.insert(requests).values(request);
    const [row] = await tx
      .insert(commercePayments)
      .values({
        requestId: request.requestId,
        payToken: newPayToken(),
        accountId: caller.accountId,
        clientIdId: caller.clientId?.id ?? null,
        origin: caller.origin,
        merchantId: body.merchantId,
        network: network.id,
        chainId: network.chainId,
        currency: currency.id,
        tokenAddress: getAddress(currency.address),
        wrapper: contracts.wrapper,
        escrow: contracts.escrow,
        merchant,
        payer,
        operator,
        tokenCollector: contracts.preApprovalCollector,
        amount,
        maxAmount,
        ...expiries,
        paymentReference: request.paymentReference,
        commercePaymentHash: hash,
        // The row's own times are the server's, as every later update's: only the escrow's
        // expiries follow the chain's clock.
        createdAt: deps.clock.now(),
        updatedAt: deps.clock.now(),
      })
      .returning();
    if (!row) throw new Error('commerce payment insert returned no row');
    return row;
  });
  if (payment.payer === null) return { payment, transactions: [], authorize: null };
  const named = { ...payment, payer: payment.payer };
  return {
    payment,
    transactions: [approveWrapperTransaction(payment, amount), preApproveTransaction(named)],
    authorize: authorizeTransaction(named),
  };
}
