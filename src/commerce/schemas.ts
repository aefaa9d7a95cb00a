import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { accountIdOf, browserOriginOf, clientIdOf } from '../http/principal.ts';
import type { EvmTransaction } from '../payments/transactions.ts';
import type { RequestCaller } from '../requests/create.ts';
import { COMMERCE_STATUSES } from './state.ts';

export const COMMERCE_AUTH = ['apiKey', 'clientId'] as const;
export const COMMERCE_TAGS = ['V2/Commerce Payments'];
/** The buyer's routes by pay token: the hosted pay page's client ID, or the account's own. */
export const PAY_TOKEN_AUTH = ['clientId', 'apiKey'] as const;

export const PayTokenParams = Type.Object({
  payToken: Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'The pay token of `payUrl` (`PAY_URL/?commerce=<payToken>`)',
  }),
});

/** One transaction a wallet sends, its value as the reference's BigNumber. */
export const EvmCall = Type.Object({
  to: Type.String(),
  data: Type.String(),
  value: Type.Object({ type: Type.Literal('BigNumber'), hex: Type.String() }),
});

/** A transaction as `EvmCall` answers it. */
export function evmCallOf(tx: EvmTransaction) {
  return { to: tx.to, data: tx.data, value: { type: 'BigNumber' as const, hex: tx.value } };
}

export const CommerceParams = Type.Object({ requestId: Type.String({ maxLength: 100 }) });

export const CommerceStatus = Type.Enum([...COMMERCE_STATUSES], {
  description: 'docs/guides/commerce.md#states',
});

const SIGNED_TRANSACTION_DESCRIPTION =
  'payreq’s addition: the operator’s own signed transaction (hex, as `eth_sendRawTransaction` takes it) of exactly the `/calldata` answer, for operators whose key this server does not hold; it is checked and broadcast as it is; sent again, it answers as the first time, reserving and sending nothing more';

/** How an execute operation is signed, and who may have the server sign it. */
export const SERVER_SIGNS =
  'Sent with the server’s operator key when it is the payment’s operator, and then only for an API key: a client ID is public, so with one alone it answers 403 `commerce_client_id_cannot_sign` and sends nothing, unless it carries the operator’s own `signedTransaction`. When the server does not hold the operator’s key, `signedTransaction` is required.';

export const SignedTransaction = Type.String({
  maxLength: 100_000,
  description: SIGNED_TRANSACTION_DESCRIPTION,
});

/** What the operator signs (`/capture/calldata`, `/void/calldata`, `/refund/calldata`). */
export const OperatorCall = Type.Object({
  requestId: Type.String(),
  calldata: Type.String(),
  to: Type.String({ description: 'The commerce escrow wrapper' }),
  value: Type.String(),
  operator: Type.String({ description: 'Who must send it: the payment’s operator' }),
});

const AmountText = Type.String({
  maxLength: 100,
  description: 'A decimal string in the token’s units, greater than 0',
});

export const CaptureBody = Type.Object(
  {
    captureAmount: AmountText,
    feeBps: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    feeReceiver: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'The address `feeBps` of the capture goes to: required, and not the zero address, when `feeBps` is above 0',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RefundBody = Type.Object(
  { refundAmount: AmountText },
  { additionalProperties: false },
);

export function commerceCallerOf(request: FastifyRequest): RequestCaller {
  return {
    accountId: accountIdOf(request),
    clientId: clientIdOf(request),
    origin: browserOriginOf(request),
  };
}

/** Operations whose body is optional: no body reads as `{}`. */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
