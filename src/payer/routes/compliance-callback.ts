import { Type } from 'typebox';
import { AppError } from '../../base/errors.ts';
import { verifyTimed } from '../../base/timed-signature.ts';
import type { App } from '../../http/types.ts';
import { SIGNATURE_HEADER } from '../callback-signature.ts';
import { applyProviderEvent, parseProviderEvent } from '../callbacks.ts';
import type { PayerDeps } from '../deps.ts';
import { PAYER_TAGS } from '../schemas.ts';

/**
 * `POST /v2/payer/compliance-callbacks` (ours): the compliance provider's status callbacks,
 * signed with HMAC over the raw body (callback-signature.ts). A missing or wrong signature is
 * 401 and changes nothing. The route reads its body as text (its own scope's JSON parser) so
 * the signature is checked over the bytes sent.
 */
export function registerComplianceCallback(app: App, deps: PayerDeps): void {
  app.register(async (scope: App) => {
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      '/v2/payer/compliance-callbacks',
      {
        schema: {
          tags: PAYER_TAGS,
          summary: 'The compliance provider’s status callbacks (payreq extension)',
          headers: Type.Object({ [SIGNATURE_HEADER]: Type.Optional(Type.String()) }),
          body: Type.String({ description: 'The provider’s event, JSON, as signed' }),
          response: { 200: Type.Object({ received: Type.Boolean() }) },
        },
      },
      async (request) => {
        const header = request.headers[SIGNATURE_HEADER];
        const secret = deps.webhookSecret;
        if (
          secret === null ||
          !verifyTimed(
            secret,
            typeof header === 'string' ? header : undefined,
            request.body,
            deps.clock.now().getTime() / 1000,
          )
        ) {
          throw new AppError('invalid_callback_signature', 'Invalid signature');
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(request.body);
        } catch {
          throw new AppError('invalid_json', 'Body is not valid JSON');
        }
        const event = parseProviderEvent(parsed);
        if (event === null) throw new AppError('bad_request', 'Not a provider event');
        await applyProviderEvent(deps, event, request.log);
        return { received: true };
      },
    );
  });
}
