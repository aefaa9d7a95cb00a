import { Type } from 'typebox';

/**
 * Wire schemas of the `/v2/secure-payments` routes: the create body, the pay page's view, the
 * payer inputs of /pay and /calldata and their answers.
 */

const MAX_REQUESTS = 200;

export const TokenParams = Type.Object({ token: Type.String({ pattern: '^[0-9A-Za-z]{26}$' }) });

export const CalldataInput = {
  wallet: Type.Optional(Type.String({ minLength: 1 })),
  eoaWallet: Type.Optional(Type.String({ minLength: 1 })),
  isSafe: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  chain: Type.Optional(
    Type.Union(
      ['BASE', 'OPTIMISM', 'ARBITRUM', 'ETHEREUM', 'POLYGON', 'BNB'].map((c) => Type.Literal(c)),
    ),
  ),
  token: Type.Optional(Type.Union(['USDC', 'USDT', 'EURC', 'USDT0'].map((c) => Type.Literal(c)))),
};

export const CalldataResponse = Type.Union([
  Type.Ref('SingleCalldata'),
  Type.Ref('BatchCalldata'),
  Type.Ref('MulticallCalldata'),
]);

const Destination = Type.Union([
  Type.Object({
    destinationId: Type.Optional(Type.String()),
    payeeAddress: Type.String(),
    tokenAddress: Type.String(),
    walletAddress: Type.String(),
    network: Type.String(),
    isMasked: Type.Boolean(),
  }),
  Type.Null(),
]);

const DisplayCommon = {
  status: Type.String(),
  token: Type.String(),
  redirectUrl: Type.Union([Type.String(), Type.Null()]),
  redirectLabel: Type.String(),
  branding: Type.Null({
    description: 'Null until the link is branded: the page uses its defaults',
  }),
  requestIds: Type.Array(Type.String()),
  network: Type.String(),
  reference: Type.Union([Type.String(), Type.Null()]),
  feePlan: Type.Null(),
  expiresAt: Type.String({ format: 'date-time' }),
  payout: Type.Optional(
    Type.Literal(true, { description: 'Ours: present on payout links (money going out)' }),
  ),
  creatorWalletAddress: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'Ours, on payout links: the only wallet that may pay the link',
    }),
  ),
};

export const DisplayResponse = Type.Union([
  Type.Object({
    paymentType: Type.Literal('single'),
    ...DisplayCommon,
    payee: Type.String(),
    amount: Type.String({
      description:
        'What the request is for: in paymentCurrency, or in invoiceCurrency when the link is in fiat (its decimals: "25.5" USD, "15000" JPY)',
    }),
    paymentCurrency: Type.String(),
    isNativeCurrency: Type.Boolean(),
    destination: Destination,
    invoiceCurrency: Type.Optional(
      Type.String({
        description:
          'Ours, on links written in fiat: the fiat code (USD, EUR, GBP, CNY, JPY). The payer pays in paymentCurrency at the on-chain Chainlink rate; /pay quotes it (metadata.requiredAmount, conversionRate, rateTimestamp)',
      }),
    ),
    invoiceAmount: Type.Optional(
      Type.String({
        description: 'Ours, on links written in fiat: the amount in invoiceCurrency (its decimals)',
      }),
    ),
  }),
  Type.Object({
    paymentType: Type.Literal('batch'),
    ...DisplayCommon,
    payees: Type.Array(Type.String()),
    amounts: Type.Array(Type.String()),
    paymentCurrencies: Type.Array(Type.String()),
    invoiceCurrencies: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Ours, when a request is written in fiat: what each amount is in (its paymentCurrency for the others)',
      }),
    ),
    isNativeCurrency: Type.Array(Type.Boolean()),
    destinations: Type.Array(Destination),
  }),
  Type.Ref('MulticallView'),
]);

export const CompletedResponse = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  error: Type.String(),
  code: Type.String(),
  status: Type.String(),
  branding: Type.Null(),
  network: Type.String({
    description: 'The network of the transactions (ours, not the reference’s)',
  }),
  redirectUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the merchant sends the payer back (ours, not the reference’s)',
  }),
  redirectLabel: Type.String({ description: 'Its button’s label (ours, not the reference’s)' }),
  requestStatuses: Type.Array(
    Type.Object({
      requestId: Type.String(),
      hasBeenPaid: Type.Boolean(),
      txHash: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

/** The reference's per-link access policy (api-facts §2.3); KYT and payer rules are not built yet. */
export const AccessPolicy = Type.Object(
  {
    mode: Type.Optional(
      Type.Union([Type.Literal('inherit'), Type.Literal('off'), Type.Literal('kyt_all_wallets')]),
    ),
    screeningProvider: Type.Optional(
      Type.Union([Type.Literal('hypernative'), Type.Literal('merklescience'), Type.Null()]),
    ),
    hideUntilApproved: Type.Optional(Type.Boolean()),
    hidePayeeAddress: Type.Optional(Type.Boolean()),
    allowedPayerAddresses: Type.Optional(Type.Array(Type.String(), { maxItems: 1000 })),
  },
  {
    additionalProperties: false,
    description:
      'Accepted with its neutral values (mode inherit or off, no provider, nothing hidden, no allowlist); screening, hiding and payer allowlists answer 400 until they are built',
  },
);

export const CreateSecurePaymentBody = Type.Object(
  {
    requests: Type.Array(
      Type.Object(
        {
          destinationId: Type.Optional(Type.String({ minLength: 1 })),
          amount: Type.String({
            description:
              'In the destination’s token; in invoiceCurrency when the request names one',
          }),
          invoiceCurrency: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description:
                'The destination’s token (its currency id, as the integration guide sends it: the same as leaving it out), or, ours, a fiat code (USD, EUR, GBP, CNY, JPY). In a fiat the request is written in that fiat (amount in its decimals: cents, yen) and paid in the destination’s token at the on-chain Chainlink rate when paid; 400 conversion_route_unavailable when the destination’s network has no feed path from that fiat to its token.',
            }),
          ),
          payee: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 128,
              description:
                'As the integration guide sends it: the destination’s wallet (an EVM one in any case or with its checksum, a Tron one as written); another wallet answers 400',
            }),
          ),
          paymentCurrency: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description:
                'As the integration guide sends it: the destination’s token (its currency id); another answers 400',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_REQUESTS },
    ),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    payerIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    redirectUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    redirectLabel: Type.Optional(Type.String()),
    feePercentage: Type.Optional(
      Type.String({ deprecated: true, description: 'Ignored: fees come from the server' }),
    ),
    feeAddress: Type.Optional(Type.String({ deprecated: true, description: 'Ignored' })),
    accessPolicy: Type.Optional(AccessPolicy),
  },
  { additionalProperties: false },
);

const HEX = '^[a-fA-F0-9]+$';

/**
 * `POST /{token}/tron/broadcast`: the reference's body, a transaction as TronWeb signs it.
 * `raw_data_hex` is what was signed: the protobuf `Transaction.raw`, whose SHA-256 is the txID.
 * `raw_data` is its JSON form, with whatever else the node put in it (block reference,
 * expiration, timestamp); it must describe the same fields as the bytes, all of them.
 */
export const TronBroadcastBody = Type.Object(
  {
    signedTransaction: Type.Object(
      {
        raw_data_hex: Type.String({ pattern: HEX, maxLength: 100_000 }),
        signature: Type.Array(Type.String({ pattern: HEX, maxLength: 1_000 }), {
          minItems: 1,
          maxItems: 32,
        }),
        txID: Type.Optional(Type.String({ pattern: '^[a-fA-F0-9]{64}$' })),
        raw_data: Type.Object(
          {
            contract: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 32 }),
            fee_limit: Type.Optional(Type.Integer({ minimum: 0 })),
          },
          { additionalProperties: true },
        ),
        // TronWeb's flag for base58 (true) or `41…` hex (false) addresses in raw_data.
        visible: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const RedirectFields = {
  redirectUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  redirectLabel: Type.Optional(Type.String()),
};

export const CreatePayoutBody = Type.Object(
  {
    recipient: Type.String({ description: 'EVM 0x… or Tron T… address of the recipient' }),
    creatorWalletAddress: Type.String({
      description: 'The wallet that pays: the page offers the payment to this wallet only',
    }),
    network: Type.String({ minLength: 1 }),
    currency: Type.String({ minLength: 1, description: 'A currency of network, e.g. USDC-base' }),
    amount: Type.String(),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    recipientIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...RedirectFields,
    feePercentage: Type.Optional(
      Type.String({ deprecated: true, description: 'Ignored: fees come from the server' }),
    ),
    feeAddress: Type.Optional(Type.String({ deprecated: true, description: 'Ignored' })),
    accessPolicy: Type.Optional(AccessPolicy),
  },
  { additionalProperties: false },
);

/** What the node answered when it took the transaction. */
export const TronBroadcastResponse = Type.Object({
  result: Type.Boolean(),
  txid: Type.String(),
  code: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

/** 502: the envelope, and when the node refused, what it said (its message decoded). */
export const TronRelayFailure = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  error: Type.String(),
  code: Type.String(),
  nodeCode: Type.Optional(Type.String({ description: 'The node’s refusal code' })),
  nodeMessage: Type.Optional(Type.String({ description: 'The node’s message, as text' })),
});

export const BatchPayoutBody = Type.Object(
  {
    tokens: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 2,
      maxItems: MAX_REQUESTS,
      description: 'Pending single payout links of the account, on one network',
    }),
    ...RedirectFields,
  },
  { additionalProperties: false },
);

export const CreatedLinkResponse = Type.Object({
  securePaymentUrl: Type.String(),
  requestIds: Type.Array(Type.String()),
  token: Type.String(),
  feePlan: Type.Null(),
});
