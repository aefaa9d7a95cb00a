import { Type } from 'typebox';
import { FREQUENCIES } from '../base/recurrence.ts';
import { BigNumberJson } from '../requests/schemas.ts';

/**
 * Wire schemas of the v1 request operations Request API 0.31.0 still lists (field names as its
 * description gives them). Only an API key is accepted there, as in the reference.
 */

export const AUTH = ['apiKey'] as const;
export const TAGS = ['V1/Request'];

export const ReferenceParams = Type.Object({
  paymentReference: Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'The request’s payment reference: 0x and 16 hex digits',
  }),
});

export const CreateV1RequestBody = Type.Object(
  {
    payer: Type.Optional(Type.String({ minLength: 1 })),
    payee: Type.String({ minLength: 1 }),
    amount: Type.String(),
    invoiceCurrency: Type.String({ minLength: 1 }),
    paymentCurrency: Type.String({ minLength: 1 }),
    recurrence: Type.Optional(
      Type.Object(
        {
          startDate: Type.String({
            minLength: 1,
            maxLength: 64,
            description: 'ISO 8601 date or date-time with a zone; not in the past',
          }),
          frequency: Type.Enum([...FREQUENCIES]),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** `/pay`'s answer: both of the reference's branches (same-chain and the newer one) read it. */
export const V1PayAnswer = Type.Object({
  transactions: Type.Array(
    Type.Object(
      {
        data: Type.String(),
        to: Type.String(),
        value: BigNumberJson,
        chainType: Type.Union([Type.Literal('evm'), Type.Literal('tron')]),
      },
      { additionalProperties: true, description: 'Tron calls add their trigger parameters' },
    ),
  ),
  metadata: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'stepsRequired, needsApproval, approvalTransactionIndex, paymentTransactionIndex, hasEnoughBalance, hasEnoughGas, routeType (samechain), and what v2’s /pay adds',
  }),
});
