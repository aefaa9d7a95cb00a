import { Type } from 'typebox';
import { ErrorEnvelopeRef } from '../../http/envelope.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { IntentDeps } from '../intent-body.ts';
import { recordIntent } from '../intents.ts';
import {
  CompletedResponse,
  InProgressResponse,
  LINK_AUTH,
  LINK_TAGS,
  TokenParams,
} from '../schemas.ts';

const Hash = Type.String({ minLength: 66, maxLength: 66, pattern: '^0x[a-fA-F0-9]{64}$' });
/** The reference's six, and ours for the sandbox's local chains. */
const Chain = Type.Union(
  ['BASE', 'OPTIMISM', 'ARBITRUM', 'ETHEREUM', 'POLYGON', 'BNB', 'SANDBOX', 'SANDBOX_B'].map((c) =>
    Type.Literal(c),
  ),
);
const RouteKind = Type.Union(
  ['same_chain', 'same_chain_conversion', 'crosschain'].map((c) => Type.Literal(c)),
);
const BridgeTool = Type.Union([Type.Literal('across'), Type.Literal('stargate'), Type.Null()]);

/** One leg of a multicall receipt: which child, which transaction of the bundle paid it. */
export const LegIndexSchema = Type.Object({
  childPosition: Type.Integer({ minimum: 0 }),
  transactionIndex: Type.Integer({ minimum: 0 }),
  routeTool: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  sourceToken: Type.Optional(Type.String({ maxLength: 64 })),
  sourceAmount: Type.Optional(Type.String({ maxLength: 100 })),
  routeKind: Type.Optional(RouteKind),
  bridgeTool: Type.Optional(BridgeTool),
});

export const IntentCommon = {
  chain: Chain,
  txHash: Type.Optional(Hash),
  safeTxHash: Type.Optional(Hash),
  safePaymentDeadline: Type.Optional(
    Type.Integer({
      exclusiveMinimum: 0,
      // Unix seconds fit 32 bits until 2106; a larger value is milliseconds sent by mistake.
      maximum: 4_294_967_295,
      description:
        'Unix seconds; only with safeTxHash; at most the link’s expiry (later is taken as it)',
    }),
  ),
  payerEoaAddress: Type.Optional(Type.String({ maxLength: 64 })),
};

/**
 * 0.31.0's body (one transaction, or one Safe transaction), and 0.13.0's receipt form
 * (`smartAccountAddress`, `userOpHash`, `transactionIndices`), which 0.31.0 moved to
 * `/multicall-intent`.
 */
const IntentBody = Type.Object({
  ...IntentCommon,
  token: Type.Optional(
    Type.String({
      pattern: '^[A-Z0-9]{1,16}$',
      description:
        'Required with txHash or safeTxHash: the symbol of the currency the link is paid in (the reference takes USDC, USDT, EURC or USDT0; payreq any token it pays in, e.g. DAI or ETH)',
    }),
  ),
  executionKind: Type.Optional(
    Type.Union([Type.Literal('evm_same_chain'), Type.Literal('evm_cross_chain')]),
  ),
  payerAddress: Type.Optional(Type.String({ maxLength: 64 })),
  sourceNetwork: Type.Optional(Type.String({ maxLength: 64 })),
  sourceToken: Type.Optional(Type.String({ maxLength: 64 })),
  sourceAmount: Type.Optional(Type.String({ maxLength: 100 })),
  routeKind: Type.Optional(RouteKind),
  bridgeTool: Type.Optional(BridgeTool),
  smartAccountAddress: Type.Optional(Type.String({ maxLength: 64 })),
  userOpHash: Type.Optional(Hash),
  transactionIndices: Type.Optional(Type.Array(LegIndexSchema, { minItems: 1, maxItems: 250 })),
});

const IntentAnswer = Type.Union([
  Type.Object({
    intentId: Type.String(),
    paymentReference: Type.String(),
    txHash: Type.Optional(Type.String()),
    safeTxHash: Type.Optional(Type.String()),
    safePaymentDeadline: Type.Optional(Type.Integer()),
    isListening: Type.Boolean(),
    payerAddress: Type.Optional(Type.String()),
  }),
  Type.Object({
    receiptId: Type.String(),
    multicallId: Type.String(),
    parentToken: Type.String(),
    txHash: Type.Optional(Type.String()),
    safeTxHash: Type.Optional(Type.String()),
    safePaymentDeadline: Type.Optional(Type.Integer()),
    sourceChain: Type.String(),
    smartAccountAddress: Type.String(),
    userOpHash: Type.String(),
    transactionIndices: Type.Array(
      Type.Object({ childPosition: Type.Integer(), transactionIndex: Type.Integer() }),
    ),
    isListening: Type.Literal(false),
  }),
]);

/** `POST /v2/secure-payments/{token}/intent` (api-facts §2.8). */
export function registerRecordIntent(app: App, deps: IntentDeps): void {
  app.post(
    '/v2/secure-payments/:token/intent',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'Record the transaction (or Safe transaction) that pays a link',
        description:
          'txHash: a transaction the payer sent; detection confirms it. safeTxHash: a Safe transaction its owners are signing; until it executes, fails or passes safePaymentDeadline (default and at most: the link’s expiry, as /pay’s safePaymentDeadline says), GET /{token}, /pay and /calldata answer 423, and so does a second intent. Exactly one of the two.',
        params: TokenParams,
        body: IntentBody,
        response: {
          200: IntentAnswer,
          403: { description: 'Expired or no longer payable', $ref: 'ErrorEnvelope' },
          409: Type.Union([CompletedResponse, ErrorEnvelopeRef], {
            description:
              'Already completed; or (transfer_recorded_elsewhere) the txHash is recorded as a transfer to another link',
          }),
          423: InProgressResponse,
        },
      },
    },
    async (request) => recordIntent(deps, linkScopeOf(request), request.params.token, request.body),
  );
}
