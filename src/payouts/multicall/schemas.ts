import { Type } from 'typebox';
import { CROSSCHAIN_METADATA, ROUTE_TYPE } from '../../payments/crosschain-schemas.ts';
import {
  BatchMetadata,
  SAFE_ANSWER,
  SAFE_METADATA,
  STEP_METADATA,
} from '../../payments/schemas.ts';
import { BLOCK_REASONS } from '../../secure-payments/link-children.ts';
import { EXECUTION_KINDS } from './create.ts';
import { RECOVERY_ACTIONS } from './reasons.ts';

/**
 * Wire schemas of multicall payouts (api-facts §2.10 and Variant C): a parent's view and its
 * calldata, which the link routes answer too.
 */

export const literals = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((value) => Type.Literal(value)));
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const Context = Type.Object({
  requestId: Type.String(),
  securePaymentToken: Type.String(),
  position: Type.Integer(),
  hasBeenPaid: Type.Boolean(),
  securePaymentStatus: Type.Optional(Type.String()),
  requestStatus: Type.Optional(Type.String()),
  expiresAt: Type.Optional(Type.String()),
  network: Type.Optional(Type.String()),
  currency: Type.Optional(Type.String()),
});

const ChildView = Type.Object({
  securePaymentToken: Type.String(),
  requestId: Type.String(),
  position: Type.Integer(),
  executable: Type.Boolean(),
  blockReason: Type.Union([literals(BLOCK_REASONS), Type.Null()]),
  messageKey: Nullable(Type.String()),
  context: Context,
  recoveryAction: Type.Union([literals(RECOVERY_ACTIONS), Type.Null()]),
  feePlan: Type.Null(),
  amount: Nullable(Type.String()),
  payee: Nullable(Type.String()),
  reference: Nullable(Type.String()),
  network: Type.String({ description: 'Ours: the child’s network' }),
  paymentCurrency: Nullable(Type.String({ description: 'Ours: the child’s currency id' })),
  due: Nullable(Type.String({ description: 'Ours: what the child still wants' })),
});

const MulticallViewSchema = Type.Object(
  {
    paymentType: Type.Literal('multicall'),
    status: literals(['pending', 'expired', 'completed', 'partially_settled'] as const),
    redirectUrl: Nullable(Type.String()),
    redirectLabel: Type.String(),
    orchestratorId: Type.Null(),
    branding: Type.Null(),
    analytics: Type.Object({
      creationTimestamp: Type.String(),
      numberOfPaymentsExcludingFees: Type.Integer(),
      destinationIds: Type.Array(Type.String()),
    }),
    requestIds: Type.Array(Type.String()),
    token: Type.String(),
    canExecute: Type.Boolean(),
    expiresAt: Type.String({ format: 'date-time' }),
    createdAt: Type.String({ format: 'date-time' }),
    children: Type.Array(ChildView),
    totals: Type.Object({
      childCount: Type.Integer(),
      blockedChildCount: Type.Integer(),
      byDestinationCurrency: Type.Array(
        Type.Object({
          network: Type.String(),
          currency: Type.String(),
          totalAmount: Type.String(),
        }),
      ),
      amountSummary: Type.Object({
        grossAmount: Type.String(),
        netRecipientAmount: Type.String(),
        totalFees: Type.String(),
        payeeBorneFees: Type.String(),
        payerBorneFees: Type.String(),
        payerTotal: Type.String(),
      }),
    }),
    network: Type.String({ description: 'Ours: the network the parent pays on' }),
    executionKind: literals(EXECUTION_KINDS),
    payout: Type.Literal(true),
    creatorWalletAddress: Nullable(
      Type.String({ description: 'Ours: the only wallet that may pay it' }),
    ),
  },
  { $id: 'MulticallView', additionalProperties: false },
);

const Transaction = Type.Union([Type.Ref('EvmTransaction'), Type.Ref('TronTransaction')]);

const DestinationCall = Type.Object(
  {
    network: Type.String({ description: 'The destination network (`base`)' }),
    chain: Type.String({
      description:
        'The aggregator’s identifier of the destination chain (its chain id), from the quote',
    }),
    chainId: Type.Optional(Type.Integer()),
    target: Type.String({ description: 'Alias of contractAddress, the call checked' }),
    contractAddress: Type.String({ description: 'Our fee proxy on the destination network' }),
    calldata: Type.String({
      description:
        'The fee proxy payment of the child (payee, amount, payment reference), proven equal to the route’s destination call',
    }),
  },
  {
    description:
      'evm_cross_chain: the call the child’s route makes on its network once the bridge delivers, checked before the answer leaves',
  },
);

/** What an `evm_cross_chain` answer adds to the metadata (api-facts §2.7). */
const MULTICALL_CROSSCHAIN_METADATA = {
  ...CROSSCHAIN_METADATA,
  requiredAmount: Type.Optional(Type.String()),
  balance: Type.Optional(Type.String()),
  nativeBalance: Type.Optional(Type.String()),
  estimatedNetworkFee: Type.Optional(Type.String()),
  estimatedApprovalNetworkFee: Type.Optional(Type.String()),
  estimatedPaymentNetworkFee: Type.Optional(Type.String()),
  bridgeSourceAmount: Type.Optional(
    Type.String({ description: 'What the bridge calls take of the source token, all together' }),
  ),
  sourceSideAmount: Type.Optional(
    Type.String({
      description: 'What the children already on the source chain in the source token take',
    }),
  ),
  bridgeFeeAmount: Type.Optional(
    Type.String({ description: 'The bridge’s fees, in the source token' }),
  ),
  sourceToken: Type.Optional(Type.String({ description: 'The `token` asked (`USDT`)' })),
  sourceTokenAddress: Type.Optional(Type.String()),
  sourceNetwork: Type.Optional(Type.String({ description: 'The source network (`arbitrum-one`)' })),
  aggregateAllowance: Type.Optional(
    Type.String({
      description: 'What the approvals grant the bridge, every routed child together',
    }),
  ),
  bridge: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'Ours: the bridge `tool` and, per routed child (`legs[].childPosition`), its source amount, quote expiry, deadline and `rawStep`',
      },
    ),
  ),
  feePlanCarried: Type.Optional(Type.Boolean()),
};

const MulticallCalldataSchema = Type.Object(
  {
    paymentType: Type.Literal('multicall'),
    executionKind: literals(EXECUTION_KINDS),
    token: Type.String(),
    network: Type.String({
      description:
        'Where the transactions are sent: the children’s network, or for evm_cross_chain the source network',
    }),
    chainId: Type.Integer(),
    childTokens: Type.Array(Type.String()),
    requestIds: Type.Array(Type.String()),
    payees: Type.Array(Type.String()),
    amounts: Type.Array(Type.String()),
    references: Type.Array(Nullable(Type.String())),
    children: Type.Array(
      Type.Object({
        position: Type.Integer(),
        securePaymentToken: Type.String(),
        requestId: Type.String(),
        payee: Type.String(),
        amount: Type.String(),
        paymentCurrency: Type.String(),
        network: Type.String(),
        paymentReference: Nullable(Type.String()),
        paymentCurrencyAddress: Nullable(Type.String()),
        sourceTokenAddress: Nullable(
          Type.String({ description: 'evm_cross_chain: the source token the payer spends' }),
        ),
        tokenAddress: Nullable(Type.String()),
        destinationCall: Type.Optional(DestinationCall),
      }),
    ),
    destinationCalls: Type.Optional(
      Type.Array(DestinationCall, {
        description:
          'evm_cross_chain: every routed child’s destinationCall, in the children’s order',
      }),
    ),
    transactions: Type.Array(Transaction),
    feeBundle: Type.Null(),
    ERC20ApprovalTransactions: Type.Array(Transaction),
    batchPaymentTransaction: Type.Union([Transaction, Type.Null()], {
      description:
        'The batch payment; evm_cross_chain: of the children on the source chain, null without any',
    }),
    metadata: Type.Object(
      {
        ...STEP_METADATA,
        routeType: ROUTE_TYPE,
        approvalTransactionIndices: Type.Array(Type.Integer()),
        batchPaymentTransactionIndex: Type.Union([Type.Integer(), Type.Null()]),
        feeTransactionIndices: Type.Array(Type.Integer()),
        bridgeTxIndices: Type.Array(Type.Integer(), {
          description: 'evm_cross_chain: the indices in `transactions` of the bridge calls',
        }),
        childCount: Type.Integer(),
        executableLegCount: Type.Integer(),
        network: Type.String(),
        paymentCurrencyId: Type.Optional(Type.String()),
        hasEnoughBalance: Type.Optional(Type.Boolean()),
        hasEnoughGas: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        insufficientTokens: Type.Optional(BatchMetadata.properties.insufficientTokens),
        ...SAFE_METADATA,
        ...MULTICALL_CROSSCHAIN_METADATA,
      },
      { additionalProperties: false },
    ),
    ...SAFE_ANSWER,
  },
  { $id: 'MulticallCalldata', additionalProperties: false },
);

/** Registered once by the app; routes refer to them by `$id`. */
export const MULTICALL_SCHEMAS = [MulticallViewSchema, MulticallCalldataSchema];
