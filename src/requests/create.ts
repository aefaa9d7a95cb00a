import type { Static } from 'typebox';
import { zeroAddress } from 'viem';
import type { Clock } from '../base/clock.ts';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import { conversionPath } from '../chains/conversion-routes.ts';
import { isFiat } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import type { ClientIdRow } from '../db/schema.ts';
import { parseWallet } from '../destinations/destination-id.ts';
import { boundDestination, DESTINATION_MISMATCH_MESSAGE } from '../destinations/destinations.ts';
import { parseAmount } from '../payments/amounts.ts';
import { unconvertibleAmount } from '../payments/calldata/conversion.ts';
import { cryptoToFiatRefusal } from './crypto-to-fiat.ts';
import { checkListedChains, checkListedCurrencies } from './listed-currencies.ts';
import { resolveOriginal } from './original.ts';
import { insertSchedule, recurrenceOf } from './recurring.ts';
import { writeRequest } from './request-group.ts';
import { insertRequests, type NewRequest, type RequestRow } from './requests.ts';
import type { CreateRequestBody } from './schemas.ts';

export type CreateRequestInput = Static<typeof CreateRequestBody>;

export interface RequestCaller {
  readonly accountId: string;
  readonly clientId: ClientIdRow | null;
  readonly origin: string | null;
}

/**
 * `POST /v2/request`: checks the currencies, the payee (the client ID's bound destination, if
 * it has one, decides it), the payer and the amount, then writes the request. With
 * `recurrence`, the request is the original of a recurring series and gets its schedule; with
 * `originalRequestId` (or its payment reference), it is an occurrence of one (original.ts).
 * Fields of the reference whose features are not built yet are refused only when they would
 * matter.
 */
export async function createRequest(
  deps: {
    readonly db: Database;
    readonly chains: ChainRegistry;
    readonly clients: Pick<ChainClients, 'configured'>;
    readonly clock: Clock;
  },
  caller: RequestCaller,
  body: CreateRequestInput,
): Promise<RequestRow> {
  if (
    body.recurrence !== undefined &&
    (body.originalRequestId !== undefined || body.originalRequestPaymentReference !== undefined)
  ) {
    throw new ValidationError([{ field: 'recurrence', message: RECURRENCE_WITH_ORIGINAL_MESSAGE }]);
  }
  const now = deps.clock.now();
  const recurrence = body.recurrence === undefined ? null : recurrenceOf(body.recurrence, now);
  const prepared = await prepareRequest(deps, caller, body);
  const original = await resolveOriginal(deps.db, caller.accountId, body);
  if (recurrence === null) {
    // Written with the requests and payouts other callers make at the same moment.
    return writeRequest(deps.db, { ...prepared, ...original });
  }
  // The original is occurrence 0; it and its schedule exist together or not at all.
  return deps.db.transaction(async (tx) => {
    const [row] = await insertRequests(tx, [{ ...prepared, occurrence: 0 }]);
    if (!row) throw new Error('request insert returned no row');
    await insertSchedule(tx, row, recurrence, now);
    return row;
  });
}

const RECURRENCE_WITH_ORIGINAL_MESSAGE =
  'cannot be sent with originalRequestId or originalRequestPaymentReference: an occurrence follows its original’s schedule';

/**
 * Everything `createRequest` checks of the request itself, without writing: the row it would
 * insert, or a 4xx. Recurrence and the original are `createRequest`'s.
 */
export async function prepareRequest(
  deps: {
    readonly db: Database;
    readonly chains: ChainRegistry;
    readonly clients: Pick<ChainClients, 'configured'>;
  },
  caller: RequestCaller,
  body: CreateRequestInput,
): Promise<NewRequest> {
  const cryptoToFiat = body.isCryptoToFiatAvailable === true || body.isCryptoToFiatAllowed === true;
  // Token-list currencies beyond the curated set: their network must be served (and, last of
  // all, reachable).
  checkListedCurrencies(deps, body);

  const errors: FieldError[] = [];
  const payment = deps.chains.currency(body.paymentCurrency);
  const invoice = deps.chains.currency(body.invoiceCurrency);
  if (!payment || isFiat(payment))
    errors.push({ field: 'paymentCurrency', message: 'is not a supported currency id' });
  if (!invoice)
    errors.push({
      field: 'invoiceCurrency',
      message: 'is not a supported currency id or fiat code',
    });
  // A fiat invoice needs a Chainlink path to the payment currency on its network.
  if (
    payment &&
    invoice &&
    invoice.id !== payment.id &&
    errors.length === 0 &&
    (payment.network === 'fiat' || !conversionPath(deps.chains, payment.network, invoice, payment))
  ) {
    throw new AppError(
      'conversion_route_unavailable',
      `No conversion route from ${invoice.id} to ${payment.id} on ${payment.network}`,
    );
  }
  if (errors.length > 0 || !payment || !invoice || payment.network === 'fiat')
    throw new ValidationError(errors);
  const offrampRefusal = cryptoToFiat
    ? cryptoToFiatRefusal(payment.network, payment, invoice)
    : null;
  if (offrampRefusal !== null)
    throw new ValidationError([{ field: 'paymentCurrency', message: offrampRefusal }]);
  const network = deps.chains.network(payment.network);
  if (!network)
    throw new ValidationError([
      { field: 'paymentCurrency', message: 'is on a network this server does not serve' },
    ]);

  // A client ID bound to a destination makes requests for that destination only: on its
  // network, to its wallet (as secure payments do), so a public client ID cannot be used to
  // bill on the account's behalf to another wallet.
  const bound = await boundDestination(deps.db, caller.clientId);
  if (bound && !bound.active) {
    throw new AppError(
      'destination_inactive',
      'The payee destination bound to this client ID is inactive',
    );
  }
  if (bound && bound.network !== network.id) {
    throw new ValidationError([
      {
        field: 'paymentCurrency',
        message: `must be on ${bound.network}, the network of the client ID's payee destination`,
      },
    ]);
  }
  // A crypto-to-fiat request may name no payee: the off-ramp's deposit address is paid instead
  // (the zero address stands for none).
  const payee = body.payee ?? bound?.walletAddress;
  if (payee === undefined && !cryptoToFiat)
    throw new ValidationError([{ field: 'payee', message: 'is required' }]);
  const payeeAddress =
    payee === undefined ? zeroAddress : walletOf(payee, network.chainId, 'payee');
  if (bound && payeeAddress !== bound.walletAddress)
    throw new AppError('destination_mismatch', DESTINATION_MISMATCH_MESSAGE);
  const payer = body.payer === undefined ? null : walletOf(body.payer, network.chainId, 'payer');
  // The amount is written in the invoice currency: cents of a USD invoice, yen of a JPY one.
  const amount = parseAmount(body.amount, invoice.decimals);
  if (!amount.ok) throw new ValidationError([{ field: 'amount', message: amount.message }]);
  const unconvertible = unconvertibleAmount(amount.value, invoice);
  if (unconvertible !== null) {
    throw new ValidationError([{ field: 'amount', message: unconvertible }]);
  }

  // Every 400 above first: a request that can never be made says so, not a 503 that invites
  // a retry.
  checkListedChains(deps, body);
  return {
    accountId: caller.accountId,
    clientIdId: caller.clientId?.id ?? null,
    network,
    invoiceCurrency: invoice,
    paymentCurrency: payment,
    expectedAmount: amount.value,
    payee: payeeAddress,
    payer,
    destinationRowId: bound?.id ?? null,
    reference: body.reference ?? null,
    customerInfo: body.customerInfo ?? null,
    origin: caller.origin,
    cryptoToFiat,
  };
}

/** An address of the payment network's kind, or a 400 naming the field. */
export function walletOf(value: string, chainId: number, field: string): string {
  const parsed = parseWallet(value, chainId);
  if (!parsed.ok) throw new ValidationError([{ field, message: parsed.message }]);
  return parsed.address;
}
