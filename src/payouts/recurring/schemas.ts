import { type Static, Type } from 'typebox';
import { BigNumberJson } from '../../requests/schemas.ts';

/** Wire schemas of recurring payouts (api-facts §4.2). */

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

const Status = Type.Union([
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

export const RecurringStatusResponse = Type.Object({
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
  requests: Type.Array(Type.Object({ paymentReference: Type.String(), requestId: Type.String() })),
  payments: Type.Array(
    Type.Object({
      id: Type.String(),
      amount: Type.String(),
      timestamp: Type.String(),
      txHash: Type.String(),
    }),
  ),
  createdAt: Type.String(),
  payUrl: Type.String({
    description:
      'The hosted page where the payer approves and signs (payreq’s addition); its token is the payer’s capability',
  }),
});

export const PatchBody = Type.Object(
  {
    action: Type.String({
      minLength: 1,
      maxLength: 64,
      description: '`cancel` or `unpause`; anything else answers 400 `Invalid action: <value>`',
    }),
  },
  { additionalProperties: false },
);

const Approval = Type.Object({ data: Type.String(), to: Type.String(), value: BigNumberJson });

export const PatchResponse = Type.Union([
  Type.Object({
    id: Type.String(),
    status: Type.Literal('cancelled'),
    transactions: Type.Array(Approval, {
      description:
        'The approval that lowers the proxy’s allowance to what the payer’s other schedules of this token may still pull; empty when the allowance is already no more than that',
    }),
    metadata: Type.Object({
      remainingPayments: Type.Integer(),
      remainingAmount: Type.String(),
      processedPayments: Type.Integer(),
      totalPayments: Type.Integer(),
    }),
  }),
  Type.Object({
    id: Type.String(),
    status: Type.Literal('active'),
    metadata: Type.Object({
      processedPayments: Type.Integer(),
      totalPayments: Type.Integer(),
      nextPaymentDate: Type.Union([Type.String(), Type.Null()]),
    }),
  }),
]);

export type RecurringPaymentPermitBody = Static<typeof RecurringPaymentPermit>;

/** The pay page's routes: a schedule by its pay token (`PAY_URL/?recurring=<token>`). */
export const PayTokenParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 128, description: 'The pay token of `payUrl`' }),
});

export const PayerViewResponse = Type.Object({
  id: Type.String(),
  status: Status,
  network: Type.String(),
  chainId: Type.Integer(),
  currency: Type.String(),
  amount: Type.String({ description: 'Each payment, to the payee' }),
  feeAmount: Type.String({ description: 'Each payment’s platform fee, on top of `amount`' }),
  frequency: Type.String(),
  startDate: Type.String(),
  paymentDates: Type.Array(Type.String(), {
    description: 'The calendar date of every payment, the first (index 1) first',
  }),
  totalPayments: Type.Integer(),
  processedPayments: Type.Integer(),
  lastPaymentDate: Type.Union([Type.String(), Type.Null()]),
  nextPaymentDate: Type.Union([Type.String(), Type.Null()]),
  payer: Type.String({ description: 'The only wallet that may approve and sign' }),
  payee: Type.String(),
  recurringPaymentPermit: RecurringPaymentPermit,
});

export const PayerApprovalQuery = Type.Object(
  {
    wallet: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The connected wallet: anything but the schedule’s payer is refused (403)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PayerApprovalResponse = Type.Object({
  transactions: Type.Array(Approval, {
    description:
      'The approvals that let the proxy pull every payment still to come (none when the allowance is enough)',
  }),
  metadata: Type.Object({
    stepsRequired: Type.Integer(),
    totalNeededAllowance: Type.String(),
    currentAllowance: Type.String(),
    additionalAllowanceNeeded: Type.String(),
    existingPaymentsAmount: Type.String(),
  }),
});
