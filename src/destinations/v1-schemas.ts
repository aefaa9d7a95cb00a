import { Type } from 'typebox';

/** What the `/v1/payee-destination` routes share. */

export const AUTH = ['session'] as const;
export const TAGS = ['V1/Payee Destination'];

const AccessPolicyInput = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal('off'), Type.Literal('kyt_all_wallets')])),
    screeningProvider: Type.Optional(
      Type.Union([Type.Literal('hypernative'), Type.Literal('merklescience'), Type.Null()]),
    ),
    hideUntilApproved: Type.Optional(Type.Boolean()),
    hidePayeeAddress: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const AccessPolicySchema = Type.Object({
  mode: Type.Union([Type.Literal('off'), Type.Literal('kyt_all_wallets')]),
  screeningProvider: Type.Union([
    Type.Literal('hypernative'),
    Type.Literal('merklescience'),
    Type.Null(),
  ]),
  hideUntilApproved: Type.Boolean(),
  hidePayeeAddress: Type.Boolean(),
});

/** Where the session's wallet wants to be paid: the wallet itself comes from the session. */
export const TargetBody = Type.Object(
  {
    walletAddress: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'The signed-in wallet, said again (any case): the same as absent. Another wallet answers 403 session_wallet_mismatch: a session proves only its own.',
      }),
    ),
    tokenAddress: Type.String({ minLength: 1, maxLength: 64 }),
    chainId: Type.Integer({ minimum: 1 }),
    accessPolicy: Type.Optional(AccessPolicyInput),
  },
  { additionalProperties: false },
);

export const DestinationV1 = Type.Object({
  id: Type.String(),
  destinationId: Type.String(),
  walletAddress: Type.String(),
  walletType: Type.Union([Type.Literal('eoa'), Type.Literal('safe')], {
    description: 'eoa so far: contract wallets are not told apart yet',
  }),
  tokenAddress: Type.String(),
  chainId: Type.Integer(),
  accessPolicy: AccessPolicySchema,
  binaryInteropAddress: Type.String(),
  humanReadableInteropAddress: Type.String(),
  claimed: Type.Boolean(),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});
