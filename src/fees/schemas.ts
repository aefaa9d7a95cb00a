import { Type } from 'typebox';

/** What the fee-config routes share: the answer's shape (the reference's example fields). */

const NullableString = (description?: string) =>
  Type.Union([Type.String(description === undefined ? {} : { description }), Type.Null()]);

const FlowSchema = Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')], {
  description: 'incoming: links that get the merchant paid; outgoing: payouts',
});
const FeeBearerSchema = Type.Union([Type.Literal('payer'), Type.Literal('recipient')], {
  description: 'payer: added on top of the amount; recipient: taken out of it',
});
export const StatusSchema = Type.Union([Type.Literal('active'), Type.Literal('disabled')]);
export const BpsSchema = Type.Integer({ minimum: 0, maximum: 10_000, description: 'Basis points' });
export const UsdCapSchema = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The most the fee may be, in USD (a decimal string greater than 0)',
});
export const AddressSchema = Type.String({ minLength: 1, maxLength: 128 });
export const ClientIdSchema = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'A client ID linked to this orchestrator: the config is specific to it',
});

export const FeeConfigSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    feeType: Type.Literal('orchestrator_fee'),
    bps: Type.Integer(),
    usdCap: NullableString(),
    feeBearer: FeeBearerSchema,
    evmRecipientAddress: NullableString(),
    tronRecipientAddress: NullableString(),
    status: StatusSchema,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    orchestratorId: Type.String(),
    flow: FlowSchema,
    clientIdId: NullableString('Null for the orchestrator’s default'),
    clientId: NullableString('Null for the orchestrator’s default'),
  },
  { additionalProperties: false },
);

export const FEE_CONFIGS_URL = '/v2/orchestrators/fee-configs';

/**
 * `POST /v2/orchestrators/fee-configs`, which the CLI's `fee-config create` checks too: 0.31.0
 * types the body as a bare string; its example is this object.
 */
export const NewFeeConfigBody = Type.Object({
  flow: FlowSchema,
  feeBearer: FeeBearerSchema,
  bps: BpsSchema,
  usdCap: Type.Optional(UsdCapSchema),
  evmRecipientAddress: Type.Optional(AddressSchema),
  tronRecipientAddress: Type.Optional(AddressSchema),
  status: Type.Optional(StatusSchema),
  clientId: Type.Optional(ClientIdSchema),
});

export const FeeConfigParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
