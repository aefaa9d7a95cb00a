import { Type } from 'typebox';
import { FREQUENCIES } from '../base/recurrence.ts';
import { PAYMENT_SCHEMA_ID } from '../payments/records.ts';
import { CrossChainQuery } from './cross-chain-query.ts';

/** Wire schemas of `/v2/request` (field names and limits as the reference API's). */

export const AUTH = ['apiKey', 'clientId', 'session'] as const;
export const TAGS = ['V2/Request'];

const REQUEST_STATUS_ID = 'RequestStatus';
/** Where a route answers a request's status: RequestStatusSchema, added once by requestRoutes. */
export const RequestStatusRef = Type.Ref(REQUEST_STATUS_ID);

export const RequestParams = Type.Object({
  requestId: Type.String({ minLength: 1, maxLength: 128 }),
});

export const CustomerInfo = Type.Object(
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

const Frequency = Type.Enum([...FREQUENCIES]);

export const CreateRequestBody = Type.Object(
  {
    amount: Type.String(),
    invoiceCurrency: Type.String({ minLength: 1 }),
    paymentCurrency: Type.String({ minLength: 1 }),
    payee: Type.Optional(Type.String({ minLength: 1 })),
    payer: Type.Optional(Type.String({ minLength: 1 })),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    customerInfo: Type.Optional(CustomerInfo),
    recurrence: Type.Optional(
      Type.Object(
        {
          startDate: Type.String({
            minLength: 1,
            maxLength: 64,
            description:
              'ISO 8601 date (midnight UTC) or date-time with a zone; not in the past (a day’s grace, for a local “today”)',
          }),
          frequency: Frequency,
        },
        {
          additionalProperties: false,
          description:
            'Makes this request the first occurrence (dated startDate) of a series: the next ones are created on their calendar dates, each announced by request.recurring',
        },
      ),
    ),
    isCryptoToFiatAvailable: Type.Optional(
      Type.Boolean({ description: 'Only false for now: crypto-to-fiat is not available yet' }),
    ),
    isCryptoToFiatAllowed: Type.Optional(
      Type.Boolean({
        description:
          'The name the reference’s guides use for isCryptoToFiatAvailable; the same meaning',
      }),
    ),
    originalRequestId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          'Makes this request an occurrence of the recurring request it names (the original, of the same account)',
      }),
    ),
    originalRequestPaymentReference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          'The original’s payment reference: names it instead of originalRequestId, or must match it',
      }),
    ),
  },
  { additionalProperties: false },
);

const Fee = Type.Object(
  {
    type: Type.Union([Type.Literal('platform'), Type.Literal('protocol')], {
      description: 'Ours are platform fees; the reference also reports protocol fees',
    }),
    provider: Type.String(),
    amount: Type.Union([Type.String(), Type.Null()]),
    currency: Type.String(),
    feeType: Type.Optional(
      Type.String({ description: 'Ours, on a fee leg: orchestrator_fee or protocol_fee' }),
    ),
    feeBearer: Type.Optional(Type.Union([Type.Literal('payer'), Type.Literal('payee')])),
    recipient: Type.Optional(Type.String()),
    paymentReference: Type.Optional(
      Type.String({ description: 'Ours, on a fee leg: its own payment reference' }),
    ),
    status: Type.Optional(
      Type.Union([Type.Literal('paid'), Type.Literal('outstanding')], {
        description: 'Ours, on a fee leg: outstanding while the payer has not paid it',
      }),
    ),
    txHash: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false },
);

const ConversionPayment = Type.Object(
  {
    amount: Type.String({ description: 'In the invoice currency' }),
    amountInUsd: Type.Optional(Type.String()),
    conversionRate: Type.String(),
    rateSource: Type.Literal('chainlink'),
    timestamp: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const ConversionBreakdown = Type.Object(
  {
    paidAmount: Type.String(),
    paidAmountInUsd: Type.Optional(Type.String()),
    remainingAmount: Type.String(),
    remainingAmountInUsd: Type.Optional(Type.String()),
    currentMarketRate: Type.Null({ description: 'A status read touches no chain: see /pay' }),
    currentMarketRateSource: Type.Null(),
    payments: Type.Array(ConversionPayment),
  },
  { additionalProperties: false },
);

export const RequestStatusSchema = Type.Object(
  {
    requestId: Type.String(),
    paymentReference: Type.String(),
    hasBeenPaid: Type.Boolean(),
    isListening: Type.Boolean(),
    status: Type.String({
      description:
        'pending, partially_paid or paid; a crypto-to-fiat request shows processing while its off-ramp transfer is under way, failed when it failed or bounced',
    }),
    txHash: Type.Union([Type.String(), Type.Null()], {
      description: 'The latest payment’s transaction',
    }),
    payee: Type.String(),
    payer: Type.Union([Type.String(), Type.Null()]),
    network: Type.String(),
    invoiceCurrency: Type.String(),
    paymentCurrency: Type.String(),
    requestAmount: Type.String(),
    expectedAmount: Type.String(),
    totalAmountPaid: Type.String(),
    excessAmount: Type.Union([Type.String(), Type.Null()]),
    payerAddress: Type.Union([Type.String(), Type.Null()], {
      description: 'Who sent the latest payment',
    }),
    payerEoaAddress: Type.Union([Type.String(), Type.Null()]),
    reference: Type.Union([Type.String(), Type.Null()]),
    customerInfo: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    payments: Type.Array(Type.Ref(PAYMENT_SCHEMA_ID)),
    isCryptoToFiatAvailable: Type.Boolean(),
    offrampStatus: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description:
          'Crypto-to-fiat requests: where the off-ramp transfer stands (the subStatus of payment.processing, or failed/bounced); null before the provider reports',
      }),
    ),
    recurrence: Type.Optional(
      Type.Object(
        {
          startDate: Type.String({ format: 'date-time' }),
          frequency: Frequency,
        },
        {
          additionalProperties: false,
          description: 'On the original of a recurring series only',
        },
      ),
    ),
    originalRequestId: Type.Optional(
      Type.String({ description: 'On occurrences of a recurring series: the original’s id' }),
    ),
    originalRequestPaymentReference: Type.Optional(
      Type.String({ description: 'On occurrences: the original’s payment reference' }),
    ),
    isRecurrenceStopped: Type.Boolean({
      description: 'Whether the series this request belongs to is stopped; false when none',
    }),
    amountInUsd: Type.Union([Type.String(), Type.Null()], {
      description: 'Fiat requests: the amount in USD (at the latest payment’s rate to USD)',
    }),
    conversionRate: Type.Union([Type.String(), Type.Null()], {
      description:
        'Fiat requests: payment currency per unit of the invoice currency of the only payment; null before one and once there are several',
    }),
    rateSource: Type.Optional(Type.Literal('chainlink')),
    conversionBreakdown: Type.Union([ConversionBreakdown, Type.Null()]),
    fees: Type.Array(Fee),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: REQUEST_STATUS_ID, additionalProperties: false },
);

/** Ethers' JSON for a BigNumber: what the reference API puts in `value`. */
export const BigNumberJson = Type.Object({ type: Type.Literal('BigNumber'), hex: Type.String() });

export const PayQuery = Type.Object(
  {
    wallet: Type.Optional(Type.String({ minLength: 1 })),
    amount: Type.Optional(Type.String()),
    feePercentage: Type.Optional(Type.String()),
    feeAddress: Type.Optional(Type.String()),
    ...CrossChainQuery,
    clientUserId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Crypto-to-fiat (with paymentDetailsId): the payer, by the id you gave it; it must be compliant',
      }),
    ),
    paymentDetailsId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Crypto-to-fiat (with clientUserId): the approved bank account of the payer the off-ramp pays',
      }),
    ),
  },
  { additionalProperties: false },
);
