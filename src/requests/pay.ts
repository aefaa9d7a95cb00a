import type { Static } from 'typebox';
import { getAddress, toHex, zeroAddress } from 'viem';
import { feeBasisPoints } from '../auth/client-id-rules.ts';
import { AppError, featureUnavailable, ValidationError } from '../base/errors.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { legCrossChainCalldata } from '../crosschain/leg-route.ts';
import type { RouteQuoter } from '../crosschain/quote-route.ts';
import type { CrossChainCalldata } from '../crosschain/route-answer.ts';
import { parseWallet } from '../destinations/destination-id.ts';
import {
  formatAmount,
  MAX_BASE_UNITS,
  parseAmount,
  TOTAL_TOO_LARGE_MESSAGE,
} from '../payments/amounts.ts';
import { FIAT_DECIMALS, MAX_PADDED_FIAT, padFiat } from '../payments/calldata/conversion.ts';
import type { CalldataDeps } from '../payments/calldata/shared.ts';
import { buildSingleCalldata } from '../payments/calldata/single.ts';
import { checkPayer } from '../payments/payer.ts';
import type { PaymentLeg, PaymentTransaction } from '../payments/transactions.ts';
import { amountDue, requestLeg } from './legs.ts';
import type { RequestRow } from './requests.ts';
import type { PayQuery } from './schemas.ts';
import { requestUnits } from './units.ts';

export type PayInput = Static<typeof PayQuery>;

/** A request's calldata; `routes` (the cross-chain quoter) where `chain` and `token` are taken. */
export interface RequestCalldataDeps extends CalldataDeps {
  readonly routes?: RouteQuoter | undefined;
  /**
   * Crypto-to-fiat (src/offramp/ fills it where an off-ramp provider is configured): the
   * provider's deposit address that pays `row` to the payer's bank, its transfer made or found.
   */
  readonly cryptoToFiat?: CryptoToFiatPayee | undefined;
}

/** The deposit address for `amount` (base units of the payment currency) of `row`. */
export type CryptoToFiatPayee = (
  row: RequestRow,
  ids: { readonly clientUserId: string; readonly paymentDetailsId: string },
  amount: bigint,
) => Promise<string>;

/** The message of `/pay` without the off-ramp's ids on a request with no payee. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const NO_PAYEE_MESSAGE =
  "This request has no payee: pay it to the payer's bank with clientUserId and paymentDetailsId";

/** A client ID's own platform fee (api-facts §8.1), when the call is made with one. */
export interface ClientFee {
  readonly feePercentage: string | null;
  readonly feeAddress: string | null;
}

/** What paying a request now comes to, before any chain is read. */
export interface PayPlan {
  /** Of what the request counts in (its invoice currency), fee excluded. */
  readonly amount: bigint;
  /**
   * The platform fee on it, and what it was asked as: in the same units, except on a fiat
   * request, where it is in the conversion proxies' 8 decimals (`feeUnits`).
   */
  readonly fee: { amount: bigint; address: string; percentage: string } | null;
  readonly leg: PaymentLeg;
}

/**
 * The amount (all of what is still due, or `amount` of it) and the platform fee that a payment
 * of `row` would carry now. A client ID with a fee of its own overrides the call's
 * `feePercentage`/`feeAddress`; its fee `"0"` lets the call's apply.
 */
export function payPlan(
  deps: Pick<CalldataDeps, 'chains'>,
  row: RequestRow,
  query: Pick<PayInput, 'amount' | 'feePercentage' | 'feeAddress'>,
  client: ClientFee | null,
): PayPlan {
  if (row.status === 'paid') throw new AppError('request_paid', 'Request has already been paid');
  const due = amountDue(row);
  const { network } = requestLeg(deps.chains, row, 0n);
  // Amounts are in what the request counts in: the fiat of a conversion request.
  const { decimals } = requestUnits(deps.chains, row);
  let amount = due;
  if (query.amount !== undefined) {
    const parsed = parseAmount(query.amount, decimals);
    if (!parsed.ok) throw new ValidationError([{ field: 'amount', message: parsed.message }]);
    if (parsed.value > due) {
      throw new ValidationError([
        {
          field: 'amount',
          message: `must not exceed what is still due (${formatAmount(due, decimals)})`,
        },
      ]);
    }
    amount = parsed.value;
  }
  const overrides =
    client?.feePercentage != null &&
    client.feeAddress !== null &&
    feeBasisPoints(client.feePercentage) !== 0;
  const units = feeUnits(deps.chains, row);
  const base = units.scale(amount);
  const fee = overrides
    ? platformFee(
        network.chainId,
        base,
        client.feePercentage ?? undefined,
        client.feeAddress ?? undefined,
        'the client ID’s fee',
      )
    : platformFee(network.chainId, base, query.feePercentage, query.feeAddress);
  if (base + (fee?.amount ?? 0n) > units.max) {
    throw new ValidationError([
      { field: 'feePercentage', message: `with the amount, ${TOTAL_TOO_LARGE_MESSAGE}` },
    ]);
  }
  return { amount, fee, leg: requestLeg(deps.chains, row, amount, fee ?? undefined) };
}

/**
 * `GET /v2/request/{id}/pay`: calldata for the plan (`payPlan`), in the reference API's shape:
 * `value` as ethers' BigNumber JSON and the balance and gas checks always present (true when
 * no wallet was given to check).
 */
export async function requestCalldata(
  deps: RequestCalldataDeps,
  row: RequestRow,
  query: PayInput,
  client: ClientFee | null = null,
) {
  const offramp = offrampIds(deps, query);
  if (offramp === null && row.cryptoToFiat && row.payee === zeroAddress)
    throw new AppError('crypto_to_fiat_not_allowed', NO_PAYEE_MESSAGE);
  const plan = payPlan(deps, row, query, client);
  // Crypto-to-fiat: the same payment, to the off-ramp's deposit address for this request.
  const leg =
    offramp === null
      ? plan.leg
      : { ...plan.leg, payee: await offramp.payee(row, offramp.ids, plan.leg.amount) };
  const bridged = offramp === null ? await requestCrossChain(deps, row, leg, query) : null;
  if (bridged) {
    return {
      transactions: bridged.transactions.map(referenceTransaction),
      metadata: bridged.metadata,
    };
  }
  const payer = checkPayer(leg.network, { wallet: query.wallet });
  const calldata = await buildSingleCalldata(deps, leg, payer);
  return {
    transactions: calldata.transactions.map(referenceTransaction),
    metadata: {
      ...calldata.metadata,
      approvalTransactionIndex: calldata.metadata.approvalTransactionIndex ?? null,
      hasEnoughBalance: calldata.metadata.hasEnoughBalance ?? true,
      hasEnoughGas: calldata.metadata.hasEnoughGas ?? true,
    },
  };
}

/**
 * `clientUserId` and `paymentDetailsId`: both or neither; not with `chain`/`token` (the
 * off-ramp takes the payment on the request's own network); refused as not built where no
 * off-ramp provider is configured.
 */
function offrampIds(deps: RequestCalldataDeps, query: PayInput) {
  const { clientUserId, paymentDetailsId } = query;
  if (clientUserId === undefined && paymentDetailsId === undefined) return null;
  if (clientUserId === undefined || paymentDetailsId === undefined) {
    throw new ValidationError([
      {
        field: clientUserId === undefined ? 'clientUserId' : 'paymentDetailsId',
        message: 'clientUserId and paymentDetailsId must be sent together',
      },
    ]);
  }
  if (query.chain !== undefined || query.token !== undefined) {
    throw new ValidationError([
      {
        field: query.chain === undefined ? 'token' : 'chain',
        message:
          'cannot be sent with clientUserId and paymentDetailsId: the off-ramp is paid on the request’s network',
      },
    ]);
  }
  // A server without an off-ramp says so before it looks at what names the payer's bank.
  if (!deps.cryptoToFiat)
    throw featureUnavailable('Crypto-to-fiat payments (clientUserId, paymentDetailsId)');
  if (!UUID.test(paymentDetailsId))
    throw new ValidationError([{ field: 'paymentDetailsId', message: 'must be a UUID' }]);
  return { payee: deps.cryptoToFiat, ids: { clientUserId, paymentDetailsId } };
}

/**
 * With `chain` and `token` (both, and `wallet`): the request paid from that chain through the
 * routing aggregator, answered directly as Request API 0.31.0 does (no payment intent); null
 * when they name the request's own currency on its network, or are not sent. Without a quoter
 * (a payout's calldata at creation) they are refused as before cross-chain payments existed.
 */
async function requestCrossChain(
  deps: RequestCalldataDeps,
  row: RequestRow,
  leg: PaymentLeg,
  query: PayInput,
): Promise<CrossChainCalldata | null> {
  if (query.chain === undefined && query.token === undefined) return null;
  if (query.chain === undefined || query.token === undefined) {
    throw new ValidationError([
      {
        field: query.chain === undefined ? 'chain' : 'token',
        message: 'chain and token must be sent together',
      },
    ]);
  }
  if (!deps.routes) {
    throw new AppError(
      'crosschain_unavailable',
      'Cross-chain payments are not available here; pay on the request’s network',
    );
  }
  if (query.wallet === undefined) {
    throw new ValidationError([
      {
        field: 'wallet',
        message: 'is required with chain and token (the wallet that pays on the source chain)',
      },
    ]);
  }
  // A Tron request is refused by name before its wallet is read as a Tron one.
  const wallet =
    leg.network.kind === 'evm' ? checkPayer(leg.network, { wallet: query.wallet }).wallet : null;
  return legCrossChainCalldata(
    { chains: deps.chains, clients: deps.clients, routes: deps.routes },
    {
      key: `request:${row.id}`,
      what: 'request',
      leg,
      feeCalls: [],
      wallet: getAddress(wallet ?? zeroAddress),
      chain: query.chain,
      token: query.token,
    },
  );
}

/**
 * `{data, to, value: {type: 'BigNumber', hex}, chainType}`; Tron calls keep their trigger
 * parameters.
 */
function referenceTransaction(tx: PaymentTransaction) {
  if ('type' in tx) {
    return {
      ...tx,
      to: tx.contractAddress,
      value: { type: 'BigNumber' as const, hex: toHex(tx.callValue) },
      chainType: 'tron' as const,
    };
  }
  return {
    data: tx.data,
    to: tx.to,
    value: { type: 'BigNumber' as const, hex: tx.value },
    chainType: 'evm' as const,
  };
}

/**
 * What a platform fee on `row` is counted in. A fiat request's is computed in the conversion
 * proxies' 8 decimals, the units its calldata carries the fee in, not in the fiat's cents: 0.5 %
 * of 5 USD is 0.025 (cutting it to cents made it 0.02). `scale` puts an amount of what the
 * request counts in into those units, `max` is the most amount and fee may come to in them.
 */
export function feeUnits(
  chains: ChainRegistry,
  row: Pick<RequestRow, 'invoiceCurrency' | 'paymentCurrency'>,
): { decimals: number; scale: (amount: bigint) => bigint; max: bigint } {
  const { invoice, converts, decimals } = requestUnits(chains, row);
  if (converts && invoice) {
    return {
      decimals: FIAT_DECIMALS,
      scale: (amount) => padFiat(amount, invoice),
      max: MAX_PADDED_FIAT,
    };
  }
  return { decimals, scale: (amount) => amount, max: MAX_BASE_UNITS };
}

/** `feePercentage` (0-100, up to 2 decimals) and `feeAddress` come together or not at all. */
export function platformFee(
  chainId: number,
  amount: bigint,
  percentage: string | undefined,
  address: string | undefined,
  whose?: string,
): { amount: bigint; address: string; percentage: string } | null {
  if (percentage === undefined && address === undefined) return null;
  if (percentage === undefined || address === undefined) {
    throw new ValidationError([
      {
        field: percentage === undefined ? 'feePercentage' : 'feeAddress',
        message: 'feePercentage and feeAddress must be sent together',
      },
    ]);
  }
  const bps = feeBasisPoints(percentage);
  if (bps === null) {
    throw new ValidationError([
      { field: 'feePercentage', message: 'must be a number from 0 to 100 with at most 2 decimals' },
    ]);
  }
  // A client ID's fee address may be of either chain kind; paying it here needs this network's.
  const parsed = parseWallet(address, chainId);
  if (!parsed.ok) {
    throw new ValidationError([
      { field: 'feeAddress', message: whose ? `${whose}: ${parsed.message}` : parsed.message },
    ]);
  }
  return { amount: (amount * BigInt(bps)) / 10_000n, address: parsed.address, percentage };
}
