import { Type } from 'typebox';
import { LinkBranding } from '../branding/schemas.ts';
import { FeeLegs, NullableFeePlan } from '../fees/plan-schema.ts';

/**
 * What the `/v2/secure-payments` routes share (payouts' link routes too): credentials, tag,
 * the token in the path, the payer inputs of the display and /pay, the answers of a completed
 * link and of a created one, and the access policy a creation body may carry.
 */

/** The most requests one link holds. */
export const MAX_LINK_REQUESTS = 200;

/** The credentials a link's creation and its token-scoped calls take. */
export const LINK_AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;
export const LINK_TAGS = ['V2/Secure Payment'];

export const TokenParams = Type.Object({ token: Type.String({ pattern: '^[0-9A-Za-z]{26}$' }) });

export const CalldataInput = {
  wallet: Type.Optional(Type.String({ minLength: 1 })),
  eoaWallet: Type.Optional(Type.String({ minLength: 1 })),
  isSafe: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description:
        '`true`: `wallet` is a Safe (1.3.0 or later) that pays. Balances and allowances are the Safe’s, and the calls (approvals, payment, fee legs) come as one Safe transaction to sign and execute (`safeTransaction`: a MultiSendCallOnly delegatecall, its `safeTxHash`), until `metadata.safePaymentDeadline`; the transaction fields hold its one call. Needs `wallet`, excludes `eoaWallet`; refused on Tron (400 `safe_not_supported`) and for a wallet that is no Safe (400 `not_a_safe`). See docs/guides/safe.md',
    }),
  ),
  chain: Type.Optional(
    Type.Union(
      ['BASE', 'OPTIMISM', 'ARBITRUM', 'ETHEREUM', 'POLYGON', 'BNB', 'SANDBOX', 'SANDBOX_B'].map(
        (c) => Type.Literal(c),
      ),
      {
        description:
          'On `/pay` and `/calldata`, with `token` and `wallet`: pay from this chain, through the routing aggregator (routeType `crosschain`: the approval of the source token and the bridge call). The reference’s six, and ours for the sandbox’s local chains (`SANDBOX`, `SANDBOX_B`: served only where the sandbox runs them). See docs/guides/crosschain.md',
      },
    ),
  ),
  token: Type.Optional(
    Type.Union(
      ['USDC', 'USDT', 'EURC', 'USDT0'].map((c) => Type.Literal(c)),
      { description: 'With `chain`: the source token' },
    ),
  ),
};

export const CompletedResponse = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  error: Type.String(),
  code: Type.String(),
  status: Type.String(),
  branding: LinkBranding,
  network: Type.String({
    description: 'The network of the transactions (ours, not the reference’s)',
  }),
  redirectUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the merchant sends the payer back (ours, not the reference’s)',
  }),
  redirectLabel: Type.String({ description: 'Its button’s label (ours, not the reference’s)' }),
  reference: Type.Union([Type.String(), Type.Null()], {
    description: 'The merchant’s reference of the link (ours, for the payer’s receipt)',
  }),
  feePlan: NullableFeePlan,
  paidAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'Block time of the latest payment, the one that completed the link (ours, for the receipt)',
  }),
  requestStatuses: Type.Array(
    Type.Object({
      requestId: Type.String(),
      hasBeenPaid: Type.Boolean(),
      txHash: Type.Union([Type.String(), Type.Null()]),
      payee: Type.String({ description: 'Ours: who the request pays' }),
      amount: Type.String({
        description: 'Ours: what the request was for, in `currency` (its decimals)',
      }),
      currency: Type.String({
        description: 'Ours: the currency the request counts in (a fiat code for a link in fiat)',
      }),
      paidAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'Ours: block time of the request’s latest payment',
      }),
    }),
  ),
  feeLegs: FeeLegs,
});

/** 423 while a Safe transaction for the link is tracked: the reference's body, in our envelope. */
export const InProgressResponse = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.String(),
    error: Type.String(),
    code: Type.String(),
    status: Type.String(),
    branding: LinkBranding,
    requestStatuses: Type.Array(
      Type.Object({
        requestId: Type.String(),
        hasBeenPaid: Type.Boolean(),
        safeTxHash: Type.Union([Type.String(), Type.Null()]),
        chainId: Type.Union([Type.Integer(), Type.Null()]),
        safePaymentDeadline: Type.Union([Type.Integer(), Type.Null()]),
      }),
    ),
    safeTransaction: Type.Union([Type.Ref('SafeTransaction'), Type.Null()], {
      description:
        'Ours: the Safe transaction /pay answered for the tracked safeTxHash, for the owners still to sign and execute it (null when it came from elsewhere)',
    }),
  },
  { description: 'A Safe transaction for this link is being tracked' },
);

const ACCESS_POLICY_FIELDS = {
  mode: Type.Optional(
    Type.Union([Type.Literal('inherit'), Type.Literal('off'), Type.Literal('kyt_all_wallets')]),
  ),
  screeningProvider: Type.Optional(
    Type.Union([Type.Literal('hypernative'), Type.Literal('merklescience'), Type.Null()]),
  ),
  hideUntilApproved: Type.Optional(Type.Boolean()),
  hidePayeeAddress: Type.Optional(Type.Boolean()),
  allowedPayerAddresses: Type.Optional(Type.Array(Type.String(), { maxItems: 1000 })),
};

/**
 * An incoming link's access policy (api-facts §2.3, §11.5; src/screening/): who may pay it
 * and whether its payers are screened.
 */
export const LinkAccessPolicy = Type.Object(ACCESS_POLICY_FIELDS, {
  additionalProperties: false,
  description:
    'Who may pay the link. `mode`: `kyt_all_wallets` screens every payer wallet with `screeningProvider` (required then, null otherwise), `off` screens none, `inherit` (or no policy) takes the destination’s; a KYT plan of the client ID’s orchestrator link overrides mode and provider. `allowedPayerAddresses`: the only wallets (EVM in any case, Tron as written) that may pay; any other gets 403 `payer_not_allowed` and `secure_payment.access_rejected` is sent. `hideUntilApproved` and `hidePayeeAddress` answer 400 `feature_unavailable` when true.',
});

/** The reference's per-link access policy on payout links; KYT and payer rules are not built there. */
export const AccessPolicy = Type.Object(ACCESS_POLICY_FIELDS, {
  additionalProperties: false,
  description:
    'Accepted with its neutral values (mode inherit or off, no provider, nothing hidden, no allowlist); screening, hiding and payer allowlists answer 400 until they are built',
});

/** Where a link's page sends the payer once paid, and its button's label. */
export const REDIRECT_FIELDS = {
  redirectUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  redirectLabel: Type.Optional(Type.String()),
};

/** What a creation body may carry beside what the link is for (`creation-route.ts`), last in it. */
export const LINK_OPTION_FIELDS = {
  feePercentage: Type.Optional(
    Type.String({ deprecated: true, description: 'Ignored: fees come from the server' }),
  ),
  feeAddress: Type.Optional(Type.String({ deprecated: true, description: 'Ignored' })),
  accessPolicy: Type.Optional(AccessPolicy),
};

export const CreatedLinkResponse = Type.Object({
  securePaymentUrl: Type.String(),
  requestIds: Type.Array(Type.String()),
  token: Type.String(),
  feePlan: NullableFeePlan,
});
