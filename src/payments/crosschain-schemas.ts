import { Type } from 'typebox';

/**
 * The wire schemas of what a cross-chain `/pay` answer adds to Variant A's metadata
 * (src/crosschain/route-answer.ts), with the names and types of Request API 0.31.0. Amounts
 * are decimal strings in their token's units, as everywhere in the metadata; `rawStep` carries
 * the aggregator's step as it came, amounts in base units.
 */

const Deadline = Type.Integer({ minimum: 1, description: 'Unix seconds' });
const Source = Type.Union([Type.Literal('decoded'), Type.Literal('fallback')], {
  description:
    '`decoded` from the source transaction (the Across deposit’s `fillDeadline`), or assumed',
});

const GasFee = Type.Object({
  required: Type.Boolean(),
  currency: Type.String({ description: 'The source network’s native currency' }),
  amountNative: Type.String(),
  amountUsd: Type.Optional(Type.String()),
  hasEnoughBalance: Type.Boolean(),
});

export const ROUTE_TYPE = Type.Union([Type.Literal('samechain'), Type.Literal('crosschain')], {
  description: '`crosschain` when `chain` and `token` name a source other than the link’s own',
});

export const CROSSCHAIN_METADATA = {
  sourceAmount: Type.Optional(
    Type.String({ description: 'Cross-chain: what the payer spends of the source token' }),
  ),
  quoteFetchedAt: Type.Optional(Type.String({ format: 'date-time' })),
  quoteExpiresAt: Type.Optional(
    Type.Integer({
      description:
        'Unix seconds: the route is not served at or after it (ask /pay again, or refresh the step)',
    }),
  ),
  executionDeadline: Type.Optional(Deadline),
  executionDeadlineBreakdown: Type.Optional(
    Type.Object({
      bridge: Type.Optional(Type.Object({ deadline: Deadline, source: Source })),
      swap: Type.Optional(
        Type.Object({ deadline: Deadline, tool: Type.Optional(Type.String()), source: Source }),
      ),
    }),
  ),
  rawStep: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The routing aggregator’s step (LI.FI’s shape), for refresh-step-transaction',
      },
    ),
  ),
  costBreakdown: Type.Optional(
    Type.Object({
      approvalFee: Type.Optional(GasFee),
      paymentGasFee: Type.Optional(GasFee),
      totalGasFee: Type.Optional(GasFee),
      bridgeFee: Type.Optional(
        Type.Object({
          required: Type.Boolean(),
          currency: Type.String({ description: 'The source token' }),
          amount: Type.String(),
          amountUsd: Type.Optional(Type.String()),
          hasEnoughBalance: Type.Boolean(),
        }),
      ),
      fundingStatus: Type.Object({
        hasEnoughPaymentToken: Type.Boolean(),
        hasEnoughApprovalGas: Type.Boolean(),
        hasEnoughOverall: Type.Boolean(),
      }),
      totals: Type.Optional(
        Type.Object({
          paymentAmount: Type.String({ description: 'What the link receives, in its currency' }),
          paymentCurrency: Type.String({ description: 'The link’s currency id' }),
          sourceAmount: Type.String(),
        }),
      ),
    }),
  ),
};
