import { Type } from 'typebox';
import type { Clock } from '../../base/clock.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { RouteQuoter } from '../../crosschain/quote-route.ts';
import type { Database } from '../../db/client.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import type { ScreeningService } from '../../screening/screen.ts';
import { linkCalldata } from '../calldata.ts';
import type { ParentLinks } from '../parent-links.ts';
import {
  CalldataInput,
  CompletedResponse,
  InProgressResponse,
  LINK_AUTH,
  LINK_TAGS,
  TokenParams,
} from '../schemas.ts';

const CalldataResponse = Type.Union([
  Type.Ref('SingleCalldata'),
  Type.Ref('BatchCalldata'),
  Type.Ref('MulticallCalldata'),
]);

const calldataSchema = {
  tags: LINK_TAGS,
  params: TokenParams,
  response: {
    200: CalldataResponse,
    403: {
      description:
        'Expired or no longer payable; or the payer wallet is refused: off the link’s allowlist (`payer_not_allowed`), rejected by screening (`payer_screening_rejected`), or not screened because no provider answered (`payer_screening_unavailable`, retry later)',
      $ref: 'ErrorEnvelope',
    },
    409: { ...CompletedResponse, description: 'Already completed' },
    423: InProgressResponse,
    502: {
      description:
        'The cross-chain route offered does not pay the link (`crosschain_route_refused`)',
      $ref: 'ErrorEnvelope',
    },
    503: {
      description:
        'The network is not configured (`chain_unavailable`), its RPC fails or its read breaker is open (`chain_rpc_failed`, with `Retry-After` in seconds), or the routing aggregator fails (`crosschain_unavailable`)',
      $ref: 'ErrorEnvelope',
    },
  },
};

/**
 * A link's calldata for a payer wallet: `GET /{token}/pay` with the payer inputs in the query,
 * and its twin `POST /{token}/calldata` with them in a JSON body.
 */
export function registerPayLink(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: ChainClients;
    parents: ParentLinks;
    routes: RouteQuoter;
    screening: ScreeningService;
    wakeDispatcher?: (() => void) | undefined;
  },
): void {
  app.get(
    '/v2/secure-payments/:token/pay',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        ...calldataSchema,
        summary: 'Executable calldata (single, batch or multicall) for a payer wallet',
        description:
          'With `chain` and `token`, paid from that source chain and token through the bridge (`routeType: crosschain`): a single link as Variant A; a multicall parent (evm_cross_chain) as Variant C, each child on another network or token routed and its destination call checked (`children[].destinationCall`, `destinationCalls`, `bridgeTxIndices`), the children on the source chain in the source token paid in one batch there. A multicall parent with children on several networks needs them (400 otherwise).',
        querystring: Type.Object(CalldataInput, { additionalProperties: false }),
      },
    },
    async (request) =>
      linkCalldata(deps, linkScopeOf(request), request.params.token, request.query),
  );

  app.post(
    '/v2/secure-payments/:token/calldata',
    {
      config: { auth: LINK_AUTH, payPage: true },
      schema: {
        ...calldataSchema,
        summary: 'The same calldata, with the inputs in a JSON body',
        body: Type.Object(CalldataInput, { additionalProperties: false }),
      },
      // Every input is optional, so a POST without a body asks for the same as `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) =>
      linkCalldata(deps, linkScopeOf(request), request.params.token, request.body ?? {}),
  );
}
