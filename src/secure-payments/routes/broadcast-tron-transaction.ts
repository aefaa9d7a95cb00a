import { type Static, Type } from 'typebox';
import { ValidationError } from '../../base/errors.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import {
  CompletedResponse,
  InProgressResponse,
  LINK_AUTH,
  LINK_TAGS,
  TokenParams,
} from '../schemas.ts';
import {
  relayTronTransaction,
  type SignedTransaction,
  type TronBroadcastDeps,
} from '../tron-broadcast.ts';

const HEX = '^[a-fA-F0-9]+$';

/**
 * `POST /{token}/tron/broadcast`: the reference's body, a transaction as TronWeb signs it.
 * `raw_data_hex` is what was signed: the protobuf `Transaction.raw`, whose SHA-256 is the txID.
 * `raw_data` is its JSON form, with whatever else the node put in it (block reference,
 * expiration, timestamp); it must describe the same fields as the bytes, all of them.
 */
const SIGNED_FIELDS = {
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
};

/**
 * The transaction at the top level (0.31.0) or inside `signedTransaction` (0.13.0): one of the
 * two, checked by signedTransactionOf.
 */
const TronBroadcastBody = Type.Object(
  {
    signedTransaction: Type.Optional(
      Type.Object(SIGNED_FIELDS, {
        additionalProperties: false,
        description: 'Request API 0.13.0’s body: the transaction inside this member',
      }),
    ),
    raw_data_hex: Type.Optional(SIGNED_FIELDS.raw_data_hex),
    signature: Type.Optional(SIGNED_FIELDS.signature),
    txID: SIGNED_FIELDS.txID,
    raw_data: Type.Optional(SIGNED_FIELDS.raw_data),
    visible: SIGNED_FIELDS.visible,
  },
  { additionalProperties: false },
);

const FLAT_FIELDS = ['raw_data_hex', 'signature', 'txID', 'raw_data', 'visible'] as const;

/** The signed transaction of either shape; 400 for both shapes at once or a flat one missing a part. */
function signedTransactionOf(body: Static<typeof TronBroadcastBody>): SignedTransaction {
  const { signedTransaction, raw_data_hex, signature, txID, raw_data, visible } = body;
  if (signedTransaction !== undefined) {
    const flat = FLAT_FIELDS.filter((name) => body[name] !== undefined);
    if (flat.length > 0)
      throw new ValidationError(
        flat.map((field) => ({
          field,
          message: 'send the transaction flat or in signedTransaction, not both',
        })),
      );
    return signedTransaction;
  }
  if (raw_data_hex === undefined || signature === undefined || raw_data === undefined) {
    const missing = (['raw_data_hex', 'signature', 'raw_data'] as const).filter(
      (name) => body[name] === undefined,
    );
    throw new ValidationError(
      missing.map((field) => ({ field, message: 'is required (or send signedTransaction)' })),
    );
  }
  return {
    raw_data_hex,
    signature,
    raw_data,
    ...(txID !== undefined && { txID }),
    ...(visible !== undefined && { visible }),
  };
}

/** What the node answered when it took the transaction. */
const TronBroadcastResponse = Type.Object({
  result: Type.Boolean(),
  txid: Type.String(),
  code: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

/** 502: the envelope, and when the node refused, what it said (its message decoded). */
const TronRelayFailure = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  error: Type.String(),
  code: Type.String(),
  nodeCode: Type.Optional(Type.String({ description: 'The node’s refusal code' })),
  nodeMessage: Type.Optional(Type.String({ description: 'The node’s message, as text' })),
});

export function registerBroadcastTronTransaction(app: App, deps: TronBroadcastDeps): void {
  app.post(
    '/v2/secure-payments/:token/tron/broadcast',
    {
      // As the link's other token-scoped calls; the pay page may relay what its payer signed.
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'Relay a Tron transaction the payer signed, if it is one the link expects',
        description:
          'The approval or the payment of the link’s Tron calldata, for the transaction’s owner, exactly (contract, selector and arguments, call value; fee_limit at most the expected one), read from raw_data_hex (the protobuf Transaction.raw that was signed), with a txID that hashes it, raw_data describing the same fields, and the owner’s signature. Anything else answers 400 naming what differs, and nothing is relayed.',
        params: TokenParams,
        body: TronBroadcastBody,
        response: {
          200: TronBroadcastResponse,
          403: {
            description:
              'Expired or no longer payable, a payout signed by a wallet other than its creatorWalletAddress, or a transaction whose owner the link refuses (`payer_not_allowed`, `payer_screening_rejected`, `payer_screening_unavailable`): nothing is relayed',
            $ref: 'ErrorEnvelope',
          },
          409: { ...CompletedResponse, description: 'Already completed' },
          423: InProgressResponse,
          502: {
            ...TronRelayFailure,
            description:
              'The Tron node refused the transaction (nodeCode, nodeMessage) or did not answer',
          },
          503: { description: 'No Tron node is configured', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) =>
      relayTronTransaction(
        deps,
        request.log,
        linkScopeOf(request),
        request.params.token,
        signedTransactionOf(request.body),
      ),
  );
}
