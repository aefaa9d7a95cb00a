import { Type } from 'typebox';

/** The fee plan, version 1, as answers carry it (request-api-0.13.0's `feePlan`). */

const Bearer = Type.Union([Type.Literal('payer'), Type.Literal('payee')]);
const Flow = Type.Union([Type.Literal('get_paid'), Type.Literal('pay')], {
  description: 'get_paid: a link that gets the payee paid; pay: a payout',
});
const Usd = (description: string) => Type.String({ description: `${description}, in USD` });

const PlanFeeSchema = Type.Object({
  type: Type.String({ description: 'orchestrator_fee or protocol_fee' }),
  label: Type.String(),
  feeBearer: Bearer,
  feeBearerSource: Type.Union([
    Type.Literal('fee_config'),
    Type.Literal('payment_default_override'),
    Type.Literal('flow_default'),
    Type.Literal('forced_fee_policy'),
  ]),
  percentageBps: Type.Number(),
  capUsd: Type.Union([Type.String(), Type.Null()]),
  fixedAmountUsd: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  calculatedAmountUsd: Usd('What the fee comes to'),
  destinationResolver: Type.String({
    description: 'orchestrator_fee_config or protocol_fee_config: where the recipient comes from',
  }),
  destinationRef: Type.Object({
    evmAddress: Type.Optional(Type.String()),
    tronAddress: Type.Optional(Type.String()),
  }),
  configSource: Type.String({
    description: 'client_id_config, orchestrator_default or protocol: the level of the fee',
  }),
});

export const FeePlanSchema = Type.Object({
  version: Type.Literal(1),
  flow: Flow,
  defaultFeeBearer: Bearer,
  grossAmountUsd: Usd('The payment’s amount'),
  netRecipientAmountUsd: Usd('What the payee receives'),
  payerTotalAmountUsd: Usd('What the payer sends'),
  totalFeesUsd: Usd('Every fee'),
  payeeBorneFeesUsd: Usd('The fees taken out of the amount'),
  payerBorneFeesUsd: Usd('The fees added on top'),
  fees: Type.Array(PlanFeeSchema),
});

/** Where an answer carries a plan: null for a link without one. */
export const NullableFeePlan = Type.Union([FeePlanSchema, Type.Null()], {
  description:
    'The fee plan captured when the link was made; null unless its currency is a USD stablecoin',
});

/** A fee leg of a plan, as answers and webhooks show it (ours: `src/fees/legs.ts`). */
const FeeLegSchema = Type.Object({
  feeComponentId: Type.String(),
  type: Type.String({ description: 'orchestrator_fee or protocol_fee' }),
  label: Type.String(),
  feeBearer: Bearer,
  amount: Type.String({ description: 'In the payment currency' }),
  paidAmount: Type.String({ description: 'What detection saw paid on the leg so far' }),
  currency: Type.String(),
  network: Type.String(),
  recipient: Type.String(),
  paymentReference: Type.String({ description: 'The leg’s own payment reference' }),
  status: Type.Union([Type.Literal('paid'), Type.Literal('outstanding')]),
  txHash: Type.Union([Type.String(), Type.Null()]),
  paidAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const FeeLegs = Type.Array(FeeLegSchema, {
  description:
    'Ours: the fee legs of the link’s fee plan, each paid or outstanding. A link whose payee is paid is complete even while a fee leg is outstanding; the fee stays owed and shown here',
});
