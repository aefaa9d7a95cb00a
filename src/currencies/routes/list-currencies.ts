import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { App } from '../../http/types.ts';
import { createCurrencyAnswers } from '../answers.ts';
import { AUTH, CurrencyRef, TAGS, V1_TAGS } from '../schemas.ts';

const CurrenciesQuery = Type.Object(
  {
    network: Type.Optional(Type.String({ minLength: 1 })),
    symbol: Type.Optional(Type.String({ minLength: 1 })),
    id: Type.Optional(Type.String({ minLength: 1 })),
    firstOnly: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** `GET /v2/currencies`, and its `/v1` twin (the same operation under 0.31.0's v1 path). */
export function registerListCurrencies(app: App, deps: { chains: ChainRegistry }): void {
  const answerOf = createCurrencyAnswers(deps);
  for (const [path, tags] of [
    ['/v2/currencies', TAGS],
    ['/v1/currencies', V1_TAGS],
  ] as const) {
    app.get(
      path,
      {
        config: { auth: AUTH, authOptional: true },
        schema: {
          tags,
          summary: 'Look up currencies',
          description:
            "Request's token list, then the curated currencies it lacks. Filters are ANDed. With `id`, or `firstOnly=true` (which needs `network` and `symbol`), the answer is one currency object; otherwise a list. No match: 404 `Token not found`.",
          querystring: CurrenciesQuery,
          response: {
            200: Type.Union([CurrencyRef, Type.Array(CurrencyRef)]),
            404: { description: 'No currency matches', $ref: 'ErrorEnvelope' },
          },
        },
      },
      async (request, reply) =>
        reply.type('application/json; charset=utf-8').send(answerOf(request.query)),
    );
  }
}
