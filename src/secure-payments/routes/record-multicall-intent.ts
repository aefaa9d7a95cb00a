import { Type } from 'typebox';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { IntentDeps } from '../intent-body.ts';
import { recordMulticallIntent } from '../intents.ts';
import {
  CompletedResponse,
  InProgressResponse,
  LINK_AUTH,
  LINK_TAGS,
  TokenParams,
} from '../schemas.ts';
import { IntentCommon, LegIndexSchema } from './record-intent.ts';

/** 0.31.0's body: the smart account's receipt of a multicall parent's bundle. */
const MulticallIntentBody = Type.Object({
  ...IntentCommon,
  smartAccountAddress: Type.Optional(Type.String({ maxLength: 64 })),
  userOpHash: Type.Optional(
    Type.String({ minLength: 66, maxLength: 66, pattern: '^0x[a-fA-F0-9]{64}$' }),
  ),
  transactionIndices: Type.Array(LegIndexSchema, { minItems: 1, maxItems: 250 }),
});

/** `POST /v2/secure-payments/{token}/multicall-intent`: kept for audit, never polled. */
export function registerRecordMulticallIntent(app: App, deps: IntentDeps): void {
  app.post(
    '/v2/secure-payments/:token/multicall-intent',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'Record a smart account’s receipt of a multicall payout’s bundle',
        description:
          'For audit: which transaction of the bundle paid which child. Detection confirms the payments on chain; nothing is polled from this. Answers how many legs were recorded.',
        params: TokenParams,
        body: MulticallIntentBody,
        response: {
          200: Type.Object({ recorded: Type.Integer({ minimum: 0 }) }),
          403: { description: 'Expired or no longer payable', $ref: 'ErrorEnvelope' },
          409: { ...CompletedResponse, description: 'Already completed' },
          423: InProgressResponse,
        },
      },
    },
    async (request) => {
      const { row } = await recordMulticallIntent(
        deps,
        linkScopeOf(request),
        request.params.token,
        request.body,
      );
      return { recorded: row.legCount ?? 0 };
    },
  );
}
