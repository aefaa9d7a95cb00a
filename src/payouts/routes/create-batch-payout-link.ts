import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { Database } from '../../db/client.ts';
import type { App } from '../../http/types.ts';
import { createLinkFor } from '../../secure-payments/creation-route.ts';
import {
  CreatedLinkResponse,
  LINK_TAGS,
  MAX_LINK_REQUESTS,
  REDIRECT_FIELDS,
} from '../../secure-payments/schemas.ts';
import { createBatchPayoutLink } from '../links/batch.ts';

const BatchPayoutLinkBody = Type.Object(
  {
    tokens: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 2,
      maxItems: MAX_LINK_REQUESTS,
      description: 'Pending single payout links of the account, on one network',
    }),
    ...REDIRECT_FIELDS,
  },
  { additionalProperties: false },
);

export function registerCreateBatchPayoutLink(
  app: App,
  deps: { db: Database; clock: Clock; payUrl: string },
): void {
  app.post(
    '/v2/secure-payments/batch-payouts',
    {
      config: { auth: ['clientId', 'apiKey', 'session'] },
      schema: {
        tags: LINK_TAGS,
        summary:
          'Merge pending payout links of one network and creator wallet into one batch payout link; the merged links are invalidated',
        body: BatchPayoutLinkBody,
        response: { 201: CreatedLinkResponse },
      },
    },
    async (request, reply) => {
      const created = await createLinkFor(request, (caller) =>
        createBatchPayoutLink(deps, caller, request.body),
      );
      return reply.code(201).send(created);
    },
  );
}
