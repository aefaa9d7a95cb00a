import { type Static, Type } from 'typebox';
import { BigNumberJson } from '../../requests/schemas.ts';

/** Wire schemas that recurring payouts' routes share (api-facts §4.2). */

/** The credentials of the pay-token routes: those of a link's token-scoped calls. */
export const PAY_TOKEN_AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;

const Field = Type.Object({ name: Type.String(), type: Type.String() });

export const RecurringPaymentPermit = Type.Object(
  {
    domain: Type.Object({
      name: Type.Literal('ERC20RecurringPaymentProxy'),
      version: Type.Literal('1'),
      chainId: Type.Integer(),
      verifyingContract: Type.String(),
    }),
    types: Type.Object({ SchedulePermit: Type.Array(Field) }),
    values: Type.Object(
      {
        subscriber: Type.String(),
        token: Type.String(),
        recipient: Type.String(),
        feeAddress: Type.String(),
        amount: Type.String(),
        feeAmount: Type.String(),
        relayerFee: Type.String(),
        periodSeconds: Type.Integer(),
        firstPayment: Type.Integer(),
        totalPayments: Type.Integer(),
        nonce: Type.String(),
        deadline: Type.String(),
        strictOrder: Type.Boolean(),
      },
      { description: 'uint128 and uint256 values as decimal strings' },
    ),
  },
  {
    description:
      'EIP-712 typed data of the deployed contract’s SchedulePermit (primaryType `SchedulePermit`), for the payer to sign with eth_signTypedData_v4',
  },
);

export const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('active'),
  Type.Literal('paused'),
  Type.Literal('completed'),
  Type.Literal('cancelled'),
]);

export const RecurringParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const ActivateBody = Type.Object(
  {
    permitSignature: Type.String({
      minLength: 1,
      maxLength: 1_000,
      description: 'The payer’s signature over `recurringPaymentPermit`',
    }),
  },
  { additionalProperties: false },
);

export const ActivateResponse = Type.Object({
  message: Type.String(),
  id: Type.String(),
  status: Type.Literal('active'),
});

/** A call as payouts answer it (`wire.ts`'s `referenceTransaction`). */
export const Approval = Type.Object({
  data: Type.String(),
  to: Type.String(),
  value: BigNumberJson,
});

export type RecurringPaymentPermitBody = Static<typeof RecurringPaymentPermit>;

/** The pay page's routes: a schedule by its pay token (`PAY_URL/?recurring=<token>`). */
export const PayTokenParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 128, description: 'The pay token of `payUrl`' }),
});

/** What a recurring payout's reads show of where it stands (`views.ts` `recurringSummary`). */
export const RECURRING_SUMMARY_FIELDS = {
  id: Type.String(),
  status: Status,
  processedPayments: Type.Integer(),
  totalPayments: Type.Integer(),
  frequency: Type.String(),
  startDate: Type.String(),
  amount: Type.String({ description: 'Each payment, fee excluded' }),
  currency: Type.String(),
  network: Type.String(),
  payer: Type.String(),
  payee: Type.String(),
  lastPaymentDate: Type.Union([Type.String(), Type.Null()]),
  nextPaymentDate: Type.Union([Type.String(), Type.Null()], {
    description: 'Null unless the schedule is pending or active',
  }),
  failureCount: Type.Integer(),
  failureReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  payUrl: Type.String({
    description:
      'The hosted page where the payer approves and signs (payreq’s addition); its token is the payer’s capability',
  }),
};
