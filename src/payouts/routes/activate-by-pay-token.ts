import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { activateWithSignature } from '../recurring/activation.ts';
import { loadByPayToken } from '../recurring/refusals.ts';
import {
  ActivateBody,
  ActivateResponse,
  PAY_TOKEN_AUTH,
  PayTokenParams,
} from '../recurring/schemas.ts';
import { PAYOUT_TAGS } from '../schemas.ts';

export function registerActivateByPayToken(app: App, deps: { db: Database; clock: Clock }): void {
  app.post(
    '/v2/payouts/recurring/token/:token',
    {
      config: { auth: PAY_TOKEN_AUTH, payPage: true },
      schema: {
        tags: PAYOUT_TAGS,
        summary: 'Activate a recurring payout with its payer’s signed permit, by its pay token',
        description:
          'The same as `POST /v2/payouts/recurring/{id}`: the signature is checked against the payer over the permit before it is stored.',
        params: PayTokenParams,
        body: ActivateBody,
        response: { 201: ActivateResponse },
      },
    },
    async (request, reply) => {
      const scope = linkScopeOf(request);
      const { token } = request.params;
      const row = await loadByPayToken(deps.db, scope, token);
      const body = await activateWithSignature(deps, row, request.body.permitSignature, () =>
        loadByPayToken(deps.db, scope, token),
      );
      return reply.code(201).send(body);
    },
  );
}
