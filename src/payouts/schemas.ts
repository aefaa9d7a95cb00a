import { type Static, Type } from 'typebox';
import { FREQUENCIES } from '../base/recurrence.ts';
import { CustomerInfo } from '../requests/schemas.ts';

/**
 * Wire schemas of `/v2/payouts` that its services read too (field names and limits as the
 * reference API's, §4.1, §4.3), and what the payout routes share.
 */

/** The reference's credentials, and a session (ours): the dashboard pays out as the merchant. */
export const PAYOUT_AUTH = ['apiKey', 'clientId', 'session'] as const;
export const PAYOUT_TAGS = ['V2/Payouts'];

/** The most requests one batch transaction pays (api-facts §15). */
export const MAX_BATCH_ITEMS = 200;

const Frequency = Type.Union(FREQUENCIES.map((value) => Type.Literal(value)));

const Wallet = (description: string) => Type.Optional(Type.String({ minLength: 1, description }));

export const PayoutBody = Type.Object(
  {
    payee: Type.String({ minLength: 1 }),
    amount: Type.String(),
    invoiceCurrency: Type.String({ minLength: 1 }),
    paymentCurrency: Type.String({ minLength: 1 }),
    feePercentage: Type.Optional(Type.String()),
    feeAddress: Type.Optional(Type.String()),
    recurrence: Type.Optional(
      Type.Object(
        {
          startDate: Type.String({
            minLength: 1,
            description:
              'ISO 8601 date-time with a time zone, not in the past (five minutes’ grace, for a client’s “now”): the first payment’s date',
          }),
          frequency: Frequency,
          totalPayments: Type.Integer({
            minimum: 2,
            maximum: 255,
            description: 'How many payments (the contract counts them in a uint8)',
          }),
          payer: Type.String({
            minLength: 1,
            description: 'The EVM wallet that signs the permit and is charged; not the payee',
          }),
        },
        {
          additionalProperties: false,
          description:
            'Makes the payout recurring: the answer is a schedule (`id`) with the approval of the recurring payment proxy and the `recurringPaymentPermit` the payer signs (then `POST /v2/payouts/recurring/{id}`). ERC-20 only; not on optimism or tron.',
        },
      ),
    ),
    payerWallet: Wallet('The wallet that will pay: its balance and allowance are checked'),
    payerAddress: Wallet('Another name for payerWallet'),
    payer: Wallet('Another name for payerWallet (the guides’ name)'),
    customerInfo: Type.Optional(CustomerInfo),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export type PayoutInput = Static<typeof PayoutBody>;

export const BatchPayoutBody = Type.Object(
  {
    requests: Type.Optional(
      Type.Array(
        Type.Object(
          {
            payee: Type.String({ minLength: 1 }),
            amount: Type.String(),
            invoiceCurrency: Type.String({ minLength: 1 }),
            paymentCurrency: Type.String({ minLength: 1 }),
            feePercentage: Type.Optional(
              Type.String({
                description:
                  'This request’s platform fee (request-commerce sends it per item): as the body’s, which it replaces for this request; an empty string is no fee of its own',
              }),
            ),
            feeAddress: Type.Optional(
              Type.String({
                description:
                  'Where this request’s fee goes, with feePercentage; an empty string is none. Every fee of a batch goes to one address (the contract has one): fees to different addresses answer 400 batch_fee_addresses_differ',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: MAX_BATCH_ITEMS },
      ),
    ),
    requestIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128 }), {
        minItems: 1,
        maxItems: MAX_BATCH_ITEMS,
      }),
    ),
    payer: Wallet('The wallet that will pay: its balances and allowances are checked'),
    feePercentage: Type.Optional(
      Type.String({ description: 'Every request’s platform fee; an empty string is none' }),
    ),
    feeAddress: Type.Optional(
      Type.String({
        description: 'Where the fees go, with feePercentage; an empty string is none',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Either `requests` (new requests) or `requestIds` (existing ones), not both',
  },
);
