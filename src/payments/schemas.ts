import { Type } from 'typebox';
import { CROSSCHAIN_METADATA, ROUTE_TYPE } from './crosschain-schemas.ts';
import { PaymentSchema } from './records.ts';
import { EOA_APPROVAL_TRANSACTIONS, SMART_ACCOUNT_METADATA } from './smart-account-schemas.ts';

/** Wire schemas of calldata: the OpenAPI document and response serialization use them. */

const Hex = Type.String({ pattern: '^0x[0-9a-fA-F]*$' });

const EvmTransactionSchema = Type.Object(
  {
    to: Type.String({ description: 'Checksummed contract address' }),
    data: Hex,
    value: Type.String({ description: 'Wei, hex' }),
    chainId: Type.Integer(),
    chainType: Type.Optional(Type.Literal('evm')),
  },
  { $id: 'EvmTransaction', additionalProperties: false },
);

const TronTransactionSchema = Type.Object(
  {
    type: Type.Literal('tron'),
    contractAddress: Type.String({ description: 'Base58 contract address' }),
    functionSelector: Type.String(),
    parameters: Type.Array(
      Type.Object({
        type: Type.String(),
        value: Type.Union([Type.String(), Type.Array(Type.String())]),
      }),
    ),
    feeLimit: Type.Integer({ description: 'Sun' }),
    callValue: Type.Integer(),
    data: Hex,
    chainId: Type.Integer(),
    chainType: Type.Optional(Type.Literal('tron')),
  },
  { $id: 'TronTransaction', additionalProperties: false },
);

const Transaction = Type.Union([Type.Ref('EvmTransaction'), Type.Ref('TronTransaction')]);

const Uint = (description: string) => Type.String({ pattern: '^[0-9]+$', description });

/** Ours: the Safe transaction a Safe payer signs and executes (`isSafe=true`, docs/guides/safe.md). */
const SafeTransactionSchema = Type.Object(
  {
    safeAddress: Type.String({ description: 'The paying Safe (the `wallet` sent)' }),
    chainId: Type.Integer(),
    to: Type.String({ description: 'MultiSendCallOnly 1.4.1' }),
    value: Uint('Wei, decimal: 0 (each call carries its own value)'),
    data: Type.String({
      pattern: '^0x[0-9a-fA-F]*$',
      description: '`multiSend(bytes)` of every call in `calls`, packed in order',
    }),
    operation: Type.Literal(1, { description: 'Delegatecall' }),
    safeTxGas: Uint('0: a failing call reverts the execution, and no nonce is used'),
    baseGas: Uint('0'),
    gasPrice: Uint('0: no refund, the executor pays the gas'),
    gasToken: Type.String({ description: 'The zero address' }),
    refundReceiver: Type.String({ description: 'The zero address' }),
    nonce: Uint('The Safe’s nonce when /pay answered'),
    safeTxHash: Type.String({
      pattern: '^0x[0-9a-f]{64}$',
      description:
        'EIP-712 hash of the SafeTx under the domain {chainId, verifyingContract: safeAddress}: what the owners sign',
    }),
    threshold: Type.Integer({ description: 'Signatures `execTransaction` needs' }),
    owners: Type.Array(Type.String(), { description: 'Who may sign' }),
    calls: Type.Array(Type.Ref('EvmTransaction'), {
      description:
        'The calls packed into `data`, in order (approvals, payment, fee legs), each made by the Safe',
    }),
  },
  { $id: 'SafeTransaction', additionalProperties: false },
);

/** What a Safe payer's answer adds: the Safe transaction, and the metadata's deadline. */
export const SAFE_ANSWER = {
  safeTransaction: Type.Optional(
    Type.Ref('SafeTransaction', {
      description:
        'Ours, with isSafe=true: the Safe transaction to sign and execute; the transaction fields then hold its one call',
    }),
  ),
};
export const SAFE_METADATA = {
  safePaymentDeadline: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'With isSafe=true: Unix seconds until which the Safe payment is expected (the link’s expiry)',
    }),
  ),
};

/** The steps' part of calldata metadata: how many transactions, and which one pays. */
export const STEP_METADATA = {
  stepsRequired: Type.Integer(),
  needsApproval: Type.Boolean(),
  approvalTransactionIndex: Type.Optional(Type.Integer()),
  approvalTransactionsCount: Type.Optional(Type.Integer()),
  paymentTransactionIndex: Type.Integer(),
  transactionSponsorshipFeeUsd: Type.Null(),
  routeType: Type.Literal('samechain'),
};

/**
 * Ours, on a request written in fiat (paid at the on-chain rate): `requiredAmount` is then the
 * quote in the payment currency, and these say how it was reached and how far it may move.
 */
const CONVERSION_METADATA = {
  maxToSpend: Type.Optional(
    Type.String({
      description:
        'The most the conversion proxy may take, in the payment currency: the quote plus 2 % for the rate moving before the payment is mined; past it the payment reverts (ask /pay again)',
    }),
  ),
  conversionRate: Type.Optional(
    Type.String({ description: 'Payment currency per one unit of the invoice currency' }),
  ),
  rateTimestamp: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the oldest feed of the path was set' }),
  ),
  maxRateTimespan: Type.Optional(
    Type.Integer({
      description:
        'Seconds: the payment reverts when the rate is older than this at the block that mines it',
    }),
  ),
};

const FeeAmounts = Type.Object(
  {
    grossAmount: Type.String(),
    netRecipientAmount: Type.String(),
    totalFees: Type.String(),
    payeeBorneFees: Type.String(),
    payerBorneFees: Type.String(),
    payerTotal: Type.String(),
  },
  { description: 'The fee plan in the payment currency’s units' },
);

/** The fee legs a `/pay` answer appends after the payment (src/fees/bundle.ts). */
const FeeBundleSchema = Type.Object(
  {
    bundleId: Type.Union([Type.String(), Type.Null()]),
    defaultFeeBearer: Type.Union([Type.Literal('payer'), Type.Literal('payee'), Type.Null()]),
    amountSummary: Type.Union([FeeAmounts, Type.Null()]),
    fees: Type.Array(
      Type.Object({
        requestId: Type.String({ description: 'The id the leg’s payment reference comes from' }),
        feeComponentId: Type.Union([Type.String(), Type.Null()]),
        feeType: Type.Union([Type.String(), Type.Null()]),
        feeLabel: Type.Union([Type.String(), Type.Null()]),
        feeBearer: Type.Union([Type.Literal('payer'), Type.Literal('payee'), Type.Null()]),
        amount: Type.String(),
        paymentCurrencyId: Type.String(),
        network: Type.String(),
        chainId: Type.String(),
        recipient: Type.String(),
        paymentReference: Type.Union([Type.String(), Type.Null()]),
      }),
      { description: 'One per fee call appended to `transactions`, in their order' },
    ),
  },
  { $id: 'FeeBundle' },
);

const FeeRate = Type.Object({
  percentage: Type.String({ description: 'Percent of the gross amount' }),
  address: Type.String(),
});

const SingleCalldataSchema = Type.Object(
  {
    paymentType: Type.Literal('single'),
    transactions: Type.Array(Transaction),
    feeBundle: Type.Union([Type.Ref('FeeBundle'), Type.Null()], {
      description:
        'The fee legs of the link’s fee plan, paid after the payment; null without a plan (a platform fee of the request travels in the payment call itself)',
    }),
    paymentReference: Type.Optional(
      Type.String({ description: 'A link’s: the payment reference of its request' }),
    ),
    flow: Type.Optional(
      Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')], {
        description: 'A link’s: outgoing for a payout link, incoming otherwise',
      }),
    ),
    ...SAFE_ANSWER,
    metadata: Type.Object(
      {
        ...STEP_METADATA,
        routeType: ROUTE_TYPE,
        requiredAmount: Type.String(),
        hasEnoughBalance: Type.Optional(Type.Boolean()),
        hasEnoughGas: Type.Optional(Type.Boolean()),
        hasEnoughAllowance: Type.Optional(Type.Boolean()),
        balance: Type.Optional(Type.String()),
        allowance: Type.Optional(Type.String()),
        nativeBalance: Type.Optional(Type.String()),
        estimatedNetworkFee: Type.Optional(Type.String()),
        estimatedApprovalNetworkFee: Type.Optional(Type.String()),
        estimatedPaymentNetworkFee: Type.Optional(Type.String()),
        platformFee: Type.Optional(FeeRate),
        protocolFee: Type.Optional(FeeRate),
        ...CONVERSION_METADATA,
        ...SMART_ACCOUNT_METADATA,
        ...SAFE_METADATA,
        ...CROSSCHAIN_METADATA,
      },
      { additionalProperties: false },
    ),
    eoaApprovalTransactions: EOA_APPROVAL_TRANSACTIONS,
  },
  { $id: 'SingleCalldata', additionalProperties: false },
);

/** What a batch's payer can pay: the metadata of every batch answer (Variant B's). */
export const BatchMetadata = Type.Object(
  {
    hasEnoughBalance: Type.Boolean(),
    hasEnoughGas: Type.Union([Type.Boolean(), Type.Null()]),
    canMakePayment: Type.Union([Type.Boolean(), Type.Null()]),
    insufficientTokens: Type.Array(
      Type.Object({
        tokenAddress: Type.String(),
        tokenSymbol: Type.String(),
        paymentCurrencyId: Type.String(),
        required: Type.String(),
        available: Type.String(),
      }),
    ),
    spending: Type.Array(
      Type.Object({
        tokenAddress: Type.String(),
        tokenSymbol: Type.String(),
        paymentCurrencyId: Type.String(),
        requiredAmount: Type.String({
          description: 'What the batch takes of this currency at today’s rates, batch fee included',
        }),
        maxToSpend: Type.String({
          description:
            'The most it may take: the approval of the batch contract asks for this much (the transaction’s value, for the native currency); conversions’ quotes count with their slippage margin, and what they do not use stays with the payer',
        }),
      }),
      { description: 'Ours: per payment currency, what the wallet spends' },
    ),
    conversions: Type.Optional(
      Type.Array(
        Type.Object({
          invoiceCurrency: Type.String(),
          paymentCurrencyId: Type.String(),
          conversionRate: Type.String({
            description: 'Payment currency per unit of the invoice currency',
          }),
          rateTimestamp: Type.String({
            format: 'date-time',
            description: 'When the oldest rate of the path was set',
          }),
        }),
        { description: 'Ours, when fiat requests are paid at the on-chain rate: their rates' },
      ),
    ),
    maxRateTimespan: Type.Optional(
      Type.Integer({ description: 'Seconds: the oldest rate the conversion proxies accept' }),
    ),
    ...SAFE_METADATA,
  },
  { additionalProperties: false },
);

const BatchCalldataSchema = Type.Object(
  {
    ERC20ApprovalTransactions: Type.Array(Type.Ref('EvmTransaction')),
    batchPaymentTransaction: Type.Ref('EvmTransaction'),
    metadata: BatchMetadata,
    ...SAFE_ANSWER,
  },
  { $id: 'BatchCalldata', additionalProperties: false },
);

/** Schemas several routes refer to by `$id`; the app registers them once. */
export const SHARED_SCHEMAS = [
  PaymentSchema,
  EvmTransactionSchema,
  TronTransactionSchema,
  FeeBundleSchema,
  SafeTransactionSchema,
  SingleCalldataSchema,
  BatchCalldataSchema,
];
