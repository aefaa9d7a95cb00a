import { Type } from 'typebox';
import type { App } from '../../http/types.ts';
import { BigNumberJson } from '../../requests/schemas.ts';
import { createAuthorizeCalldata } from '../create.ts';
import type { CommerceDeps } from '../deps.ts';
import { COMMERCE_AUTH, COMMERCE_TAGS, commerceCallerOf, evmCallOf } from '../schemas.ts';

const Seconds = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description }));

const AuthorizeCalldataBody = Type.Object(
  {
    merchantId: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'Your own name for the merchant',
    }),
    merchantAddress: Type.String({ maxLength: 100, description: 'Who captures pay' }),
    buyerAddress: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The payer; without it no transactions are answered',
      }),
    ),
    amount: Type.String({ maxLength: 100, description: 'Decimal, in the token’s units' }),
    paymentCurrency: Type.String({
      maxLength: 64,
      description: 'A token currency id, e.g. USDC-base',
    }),
    maxAmount: Type.Optional(
      Type.String({ maxLength: 100, description: 'At least amount; default amount' }),
    ),
    preApprovalExpiry: Seconds(
      'Seconds from now the authorization may be sent within (default: the client ID’s, else 3600)',
    ),
    authorizationExpiry: Seconds(
      'Seconds from now captures are possible within (default: the client ID’s, else 604800)',
    ),
    refundExpiry: Seconds(
      'payreq’s addition: seconds from now refunds are possible within (default: authorizationExpiry + 2592000)',
    ),
  },
  { additionalProperties: false },
);

const EvmCall = Type.Object({
  to: Type.String(),
  data: Type.String(),
  value: BigNumberJson,
});

const AuthorizeCalldataResponse = Type.Object({
  requestId: Type.String(),
  paymentReference: Type.String({ description: 'The wrapper’s key (bytes8, no 0x)' }),
  to: Type.String({ description: 'The commerce escrow wrapper' }),
  data: Type.String({
    description:
      '`authorizePayment`, or 0x without a buyer: what `/authorize` sends as the operator once the buyer sent `transactions` (the buyer may instead send it itself, after the approval)',
  }),
  calldata: Type.String({ description: 'The same as data' }),
  value: Type.String(),
  operator: Type.String(),
  description: Type.String(),
  payUrl: Type.String({
    description:
      'payreq’s addition: the hosted page where the buyer sees what is held and authorizes from their wallet, `PAY_URL/?commerce=<token>`; the token is the buyer’s capability',
  }),
  transactions: Type.Array(EvmCall, {
    description:
      'What the buyer sends, in order: the approval of the wrapper for the amount, then preApproveAuthorization of exactly these terms, which lets the operator authorize (`POST /{requestId}/authorize`)',
  }),
});

export function registerAuthorizeCalldata(app: App, deps: CommerceDeps): void {
  app.post(
    '/v2/commerce-payments/authorize/calldata',
    {
      config: { auth: COMMERCE_AUTH },
      schema: {
        tags: COMMERCE_TAGS,
        summary: 'Create a commerce payment and the calldata that authorizes it',
        description:
          'Writes a request (payee the merchant) and its commerce payment, with the expiries resolved (body, else the client ID’s defaults, else 1 h, 7 d and 30 d after the authorization) and the operator (the client ID’s operatorWalletAddress, else the server’s). With `buyerAddress`, `transactions` are the buyer’s approval of the wrapper and its pre-approval of the terms (`preApproveAuthorization`), after which `POST /{requestId}/authorize` sends `authorizePayment` (`data`) as the operator.',
        body: AuthorizeCalldataBody,
        response: { 201: AuthorizeCalldataResponse },
      },
    },
    async (request, reply) => {
      const { payment, transactions, authorize } = await createAuthorizeCalldata(
        deps,
        commerceCallerOf(request),
        request.body,
      );
      const data = authorize?.data ?? '0x';
      return reply.code(201).send({
        requestId: payment.requestId,
        paymentReference: payment.paymentReference,
        to: payment.wrapper,
        data,
        calldata: data,
        value: '0',
        operator: payment.operator,
        payUrl: `${deps.payUrl}/?commerce=${payment.payToken}`,
        description:
          payment.payer === null
            ? 'No buyerAddress: the buyer must be named before anything can be signed, or authorizes from the pay page. Nothing to send yet.'
            : `The buyer ${payment.payer} sends both transactions in order: the approval of the wrapper for the amount, then preApproveAuthorization of exactly these terms. Then the operator ${payment.operator} sends authorizePayment (data; POST /authorize), which moves the amount into the escrow until it captures or voids it.`,
        transactions: transactions.map(evmCallOf),
      });
    },
  );
}
