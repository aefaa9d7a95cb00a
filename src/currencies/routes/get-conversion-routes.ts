import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { App } from '../../http/types.ts';
import { currencyConversions } from '../conversions.ts';
import { AUTH, CurrencyRef, TAGS, V1_TAGS } from '../schemas.ts';

const ConversionRoutesQuery = Type.Object(
  {
    network: Type.Optional(Type.String({ minLength: 1 })),
    networks: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const ConversionRoutesBody = Type.Object(
  {
    currencyId: Type.String(),
    network: Type.Optional(Type.String()),
    networks: Type.Optional(Type.Array(Type.String())),
    conversionRoutes: Type.Array(CurrencyRef),
  },
  { additionalProperties: false },
);

/** `GET /v2/currencies/{currencyId}/conversion-routes`, and its `/v1` twin. */
export function registerGetConversionRoutes(app: App, deps: { chains: ChainRegistry }): void {
  for (const [path, tags] of [
    ['/v2/currencies/:currencyId/conversion-routes', TAGS],
    ['/v1/currencies/:currencyId/conversion-routes', V1_TAGS],
  ] as const) {
    app.get(
      path,
      {
        config: { auth: AUTH, authOptional: true },
        schema: {
          tags,
          summary: 'Payment currencies that can settle an invoice currency',
          params: Type.Object({ currencyId: Type.String({ minLength: 1 }) }),
          querystring: ConversionRoutesQuery,
          response: { 200: ConversionRoutesBody },
        },
      },
      async (request) => currencyConversions(deps.chains, request.params.currencyId, request.query),
    );
  }
}
