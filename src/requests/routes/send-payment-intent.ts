import { Type } from 'typebox';
import { AppError } from '../../base/errors.ts';
import type { App } from '../../http/types.ts';
import { TAGS } from '../schemas.ts';

/**
 * `POST /v2/request/payment-intents/{paymentIntentId}` (Request API 0.13.0; 0.31.0 removed it):
 * clients written for 0.13.0 (easy-invoice, request-commerce) still call it after signing a
 * cross-chain intent. We never hand out an intent (/pay answers calldata, cross-chain calldata
 * too when given chain and token, as 0.31.0 does), so whatever the body, the answer is 410
 * naming what to call instead, rather than a 404 that reads like a wrong id.
 */

const MESSAGE =
  'Payment intents were removed in Request API 0.31.0: send the transactions that GET /v2/request/{requestId}/pay returns. No payment needs an intent: a cross-chain one is paid with the transactions /pay answers with chain and token';

/** 0.13.0's signed intent and permit, described for the clients that send them; never read. */
const Signed = Type.Optional(
  Type.Object({ signature: Type.String(), nonce: Type.String(), deadline: Type.String() }),
);

const PaymentIntentParams = Type.Object({
  paymentIntentId: Type.String({ minLength: 1, maxLength: 256 }),
});

export function registerSendPaymentIntent(app: App): void {
  app.post(
    '/v2/request/payment-intents/:paymentIntentId',
    {
      config: { auth: ['apiKey', 'clientId'] },
      schema: {
        tags: TAGS,
        deprecated: true,
        summary: 'Removed: send the transactions of /pay instead (410 payment_intents_removed)',
        description:
          'Request API 0.13.0’s payment intent send, removed in 0.31.0. Always 410 `payment_intents_removed`: a same-chain payment is made by sending the transactions of GET /v2/request/{requestId}/pay, a cross-chain one by sending those it answers with `chain` and `token`. The body (0.13.0: `signedPaymentIntent` {signature, nonce, deadline} and `signedApprovalPermit`) is not read.',
        params: PaymentIntentParams,
        body: Type.Object(
          { signedPaymentIntent: Signed, signedApprovalPermit: Signed },
          { additionalProperties: true },
        ),
      },
    },
    async () => {
      throw new AppError('payment_intents_removed', MESSAGE);
    },
  );
}
