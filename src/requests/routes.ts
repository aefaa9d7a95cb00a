import { Type } from 'typebox';
import { feeBasisPoints } from '../auth/client-id-rules.ts';
import type { ChainClients } from '../chains/clients.ts';
import { isFiat } from '../chains/currencies.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { normaliseWallet, parseWallet } from '../destinations/destination-id.ts';
import { boundDestination, DESTINATION_MISMATCH_MESSAGE } from '../destinations/destinations.ts';
import { AppError, type FieldError, ValidationError } from '../errors.ts';
import { accountIdOf, clientIdOf, scopeOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { formatAmount, parseAmount } from '../payments/amounts.ts';
import { buildSingleCalldata } from '../payments/calldata/single.ts';
import { checkPayer } from '../payments/payer.ts';
import { amountDue, requestLeg } from './legs.ts';
import { findRequest, insertRequests, listRequests, type RequestRow } from './requests.ts';

const AUTH = ['apiKey', 'clientId', 'session'] as const;
const TAGS = ['V2/Request'];
const MAX_PAGE = 100;

const CustomerInfo = Type.Object(
  {
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    lastName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
    address: Type.Optional(
      Type.Object(
        {
          street: Type.Optional(Type.String({ maxLength: 255 })),
          city: Type.Optional(Type.String({ maxLength: 100 })),
          state: Type.Optional(Type.String({ maxLength: 100 })),
          postalCode: Type.Optional(Type.String({ maxLength: 20 })),
          country: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const RequestStatus = Type.Object(
  {
    requestId: Type.String(),
    paymentReference: Type.String(),
    hasBeenPaid: Type.Boolean(),
    isListening: Type.Boolean(),
    status: Type.String(),
    txHash: Type.Union([Type.String(), Type.Null()]),
    payee: Type.String(),
    payer: Type.Union([Type.String(), Type.Null()]),
    network: Type.String(),
    invoiceCurrency: Type.String(),
    paymentCurrency: Type.String(),
    requestAmount: Type.String(),
    expectedAmount: Type.String(),
    totalAmountPaid: Type.String(),
    excessAmount: Type.Union([Type.String(), Type.Null()]),
    payerAddress: Type.Union([Type.String(), Type.Null()]),
    payerEoaAddress: Type.Union([Type.String(), Type.Null()]),
    reference: Type.Union([Type.String(), Type.Null()]),
    customerInfo: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    payments: Type.Array(Type.Unknown()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'RequestStatus', additionalProperties: false },
);

/** Ethers' JSON for a BigNumber: what the reference API puts in `value`. */
const BigNumberJson = Type.Object({ type: Type.Literal('BigNumber'), hex: Type.String() });

function requestBody(chains: ChainRegistry, row: RequestRow) {
  const decimals = chains.currency(row.paymentCurrency)?.decimals ?? 0;
  const paid = row.totalAmountPaid;
  return {
    requestId: row.requestId,
    paymentReference: `0x${row.paymentReference}`,
    hasBeenPaid: row.status === 'paid',
    isListening: row.status !== 'paid',
    status: row.status,
    txHash: null,
    payee: row.payee,
    payer: row.payer,
    network: row.network,
    invoiceCurrency: row.invoiceCurrency,
    paymentCurrency: row.paymentCurrency,
    requestAmount: formatAmount(row.expectedAmount, decimals),
    expectedAmount: formatAmount(row.expectedAmount, decimals),
    totalAmountPaid: formatAmount(paid, decimals),
    excessAmount:
      paid > row.expectedAmount ? formatAmount(paid - row.expectedAmount, decimals) : null,
    payerAddress: null,
    payerEoaAddress: null,
    reference: row.reference,
    customerInfo: row.customerInfo,
    payments: [],
    createdAt: row.createdAt.toISOString(),
  };
}

export function requestRoutes(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry; clients: ChainClients },
): void {
  app.addSchema(RequestStatus);
  const RequestStatusRef = Type.Ref('RequestStatus');

  app.post(
    '/v2/request',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create a payment request',
        body: Type.Object(
          {
            amount: Type.String(),
            invoiceCurrency: Type.String({ minLength: 1 }),
            paymentCurrency: Type.String({ minLength: 1 }),
            payee: Type.Optional(Type.String({ minLength: 1 })),
            payer: Type.Optional(Type.String({ minLength: 1 })),
            reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            customerInfo: Type.Optional(CustomerInfo),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ paymentReference: Type.String(), requestId: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
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
      if (payment && invoice && invoice.id !== payment.id) {
        errors.push({
          field: 'invoiceCurrency',
          message: 'must equal paymentCurrency: conversion payments are not available yet',
        });
      }
      if (errors.length > 0 || !payment || !invoice || payment.network === 'fiat')
        throw new ValidationError(errors);
      const network = deps.chains.network(payment.network);
      if (!network)
        throw new ValidationError([
          { field: 'paymentCurrency', message: 'is on a network this server does not serve' },
        ]);

      const clientId = clientIdOf(request);
      // A client ID bound to a destination makes requests for that destination only: on its
      // network, to its wallet (as secure payments do), so a public client ID cannot be used
      // to bill on the account's behalf to another wallet.
      const bound = await boundDestination(deps.db, clientId);
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
      const payee = body.payee ?? bound?.walletAddress;
      if (payee === undefined)
        throw new ValidationError([{ field: 'payee', message: 'is required' }]);
      const payeeAddress = walletOf(payee, network.chainId, 'payee');
      if (bound && payeeAddress !== bound.walletAddress)
        throw new AppError('destination_mismatch', DESTINATION_MISMATCH_MESSAGE);
      const payer =
        body.payer === undefined ? null : walletOf(body.payer, network.chainId, 'payer');
      const amount = parseAmount(body.amount, payment.decimals);
      if (!amount.ok) throw new ValidationError([{ field: 'amount', message: amount.message }]);

      const [row] = await insertRequests(deps.db, [
        {
          accountId: accountIdOf(request),
          clientIdId: clientId?.id ?? null,
          network,
          invoiceCurrency: invoice,
          paymentCurrency: payment,
          expectedAmount: amount.value,
          payee: payeeAddress,
          payer,
          destinationRowId: bound?.id ?? null,
          reference: body.reference ?? null,
          customerInfo: body.customerInfo ?? null,
        },
      ]);
      if (!row) throw new Error('request insert returned no row');
      return reply
        .code(201)
        .send({ paymentReference: `0x${row.paymentReference}`, requestId: row.requestId });
    },
  );

  app.get(
    '/v2/request',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'The account’s requests (a client ID’s: those made with it), newest first; walletAddress narrows to one payee',
        querystring: Type.Object(
          {
            walletAddress: Type.Optional(Type.String({ minLength: 1 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
            offset: Type.Optional(Type.Integer({ minimum: 0 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            requests: Type.Array(RequestStatusRef),
            pagination: Type.Object({
              limit: Type.Integer(),
              offset: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
          }),
        },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 20;
      const offset = request.query.offset ?? 0;
      const wallet = request.query.walletAddress;
      const normalised = wallet === undefined ? undefined : (normaliseWallet(wallet, 1) ?? wallet);
      const rows = await listRequests(deps.db, scopeOf(request), {
        walletAddress: normalised,
        limit: limit + 1,
        offset,
      });
      return {
        requests: rows.slice(0, limit).map((row) => requestBody(deps.chains, row)),
        pagination: { limit, offset, hasMore: rows.length > limit },
      };
    },
  );

  app.get(
    '/v2/request/:requestId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'A request’s status and payments',
        params: Type.Object({ requestId: Type.String({ minLength: 1 }) }),
        response: { 200: RequestStatusRef },
      },
    },
    async (request) => {
      const row = await findRequest(deps.db, accountIdOf(request), request.params.requestId);
      if (!row) throw new AppError('request_not_found', 'Request not found');
      return requestBody(deps.chains, row);
    },
  );

  app.get(
    '/v2/request/:requestId/pay',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Calldata to pay a request (all of what is still due, or `amount` of it)',
        params: Type.Object({ requestId: Type.String({ minLength: 1 }) }),
        querystring: Type.Object(
          {
            wallet: Type.Optional(Type.String({ minLength: 1 })),
            amount: Type.Optional(Type.String()),
            feePercentage: Type.Optional(Type.String()),
            feeAddress: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            transactions: Type.Array(
              Type.Union([
                Type.Object({ data: Type.String(), to: Type.String(), value: BigNumberJson }),
                Type.Ref('TronTransaction'),
              ]),
            ),
            metadata: Type.Record(Type.String(), Type.Unknown()),
          }),
        },
      },
    },
    async (request) => {
      const row = await findRequest(deps.db, accountIdOf(request), request.params.requestId);
      if (!row) throw new AppError('request_not_found', 'Request not found');
      if (row.status === 'paid')
        throw new AppError('request_paid', 'Request has already been paid');
      const leg0 = requestLeg(deps.chains, row, 0n);
      const due = amountDue(row);
      let amount = due;
      if (request.query.amount !== undefined) {
        const parsed = parseAmount(request.query.amount, leg0.currency.decimals);
        if (!parsed.ok) throw new ValidationError([{ field: 'amount', message: parsed.message }]);
        if (parsed.value > due) {
          throw new ValidationError([
            {
              field: 'amount',
              message: `must not exceed what is still due (${formatAmount(due, leg0.currency.decimals)})`,
            },
          ]);
        }
        amount = parsed.value;
      }
      const fee = platformFee(
        leg0.network.chainId,
        amount,
        request.query.feePercentage,
        request.query.feeAddress,
      );
      const leg = requestLeg(deps.chains, row, amount, fee ?? undefined);
      const payer = checkPayer(leg.network, { wallet: request.query.wallet });
      const calldata = await buildSingleCalldata(deps, leg, payer);
      return {
        transactions: calldata.transactions.map((tx) =>
          'type' in tx
            ? tx
            : { data: tx.data, to: tx.to, value: { type: 'BigNumber' as const, hex: tx.value } },
        ),
        metadata: {
          ...calldata.metadata,
          approvalTransactionIndex: calldata.metadata.approvalTransactionIndex ?? null,
        },
      };
    },
  );
}

/** `feePercentage` (0-100, up to 2 decimals) and `feeAddress` come together or not at all. */
function platformFee(
  chainId: number,
  amount: bigint,
  percentage: string | undefined,
  address: string | undefined,
): { amount: bigint; address: string } | null {
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
  return {
    amount: (amount * BigInt(bps)) / 10_000n,
    address: walletOf(address, chainId, 'feeAddress'),
  };
}

/** An address of the payment network's kind, or a 400 naming the field. */
function walletOf(value: string, chainId: number, field: string): string {
  const parsed = parseWallet(value, chainId);
  if (!parsed.ok) throw new ValidationError([{ field, message: parsed.message }]);
  return parsed.address;
}
