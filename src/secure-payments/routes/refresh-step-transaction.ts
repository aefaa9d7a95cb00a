import { Type } from 'typebox';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { CalldataDeps } from '../calldata.ts';
import { refreshLinkStep } from '../link-refresh.ts';
import {
  CompletedResponse,
  InProgressResponse,
  LINK_AUTH,
  LINK_TAGS,
  TokenParams,
} from '../schemas.ts';

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });

/**
 * The reference's body (0.13.0 spelled it out; 0.31.0 left it untyped): a LI.FI step, as
 * `/pay` gave it in `metadata.rawStep`. Its other members are the step's own and are taken.
 */
const RefreshBody = Type.Object(
  {
    step: Type.Object(
      {
        id: Type.String({ minLength: 1, maxLength: 200 }),
        type: Type.String({ maxLength: 64 }),
        tool: Type.String({ maxLength: 64 }),
        action: Type.Object(
          { toChainId: Type.Number(), toAddress: Address },
          { additionalProperties: true },
        ),
      },
      {
        additionalProperties: true,
        description: '`metadata.rawStep` of the cross-chain `/pay` answer; only its `id` is read',
      },
    ),
  },
  { additionalProperties: false },
);

const RefreshedStepSchema = Type.Object(
  {
    transactionRequest: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The fresh source transaction, as the aggregator gave it (`to`, `data`, `value`, `chainId`, `from`, `gasLimit`, `gasPrice`): send it in place of `/pay`’s bridge call',
      },
    ),
    rawStep: Type.Object({}, { additionalProperties: true, description: 'The refreshed step' }),
    quoteFetchedAt: Type.String({ format: 'date-time' }),
    quoteExpiresAt: Type.Integer({ description: 'Unix seconds' }),
    executionDeadline: Type.Integer({ description: 'Unix seconds' }),
    executionDeadlineBreakdown: Type.Object({
      bridge: Type.Object({
        deadline: Type.Integer(),
        source: Type.Union([Type.Literal('decoded'), Type.Literal('fallback')]),
      }),
    }),
  },
  { additionalProperties: false },
);

export function registerRefreshStepTransaction(app: App, deps: CalldataDeps): void {
  app.post(
    '/v2/secure-payments/:token/refresh-step-transaction',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        tags: LINK_TAGS,
        summary: 'A fresh source transaction for a cross-chain step of this link',
        params: TokenParams,
        body: RefreshBody,
        response: {
          200: RefreshedStepSchema,
          403: { description: 'Expired or no longer payable', $ref: 'ErrorEnvelope' },
          409: { ...CompletedResponse, description: 'Already completed' },
          423: InProgressResponse,
          502: {
            description: 'The refreshed route does not pay the link (`crosschain_route_refused`)',
            $ref: 'ErrorEnvelope',
          },
          503: {
            description:
              'The routing aggregator fails (`crosschain_unavailable`), or an RPC fails or its read breaker is open (`chain_rpc_failed`, with `Retry-After` in seconds)',
            $ref: 'ErrorEnvelope',
          },
        },
      },
    },
    async (request) =>
      refreshLinkStep(deps, linkScopeOf(request), request.params.token, request.body.step.id),
  );
}
