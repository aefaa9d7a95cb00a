import { Type } from 'typebox';
import { AppError } from '../base/errors.ts';
import { conversionRoutes } from '../chains/conversion-routes.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { App } from '../http/types.ts';
import { CurrencyRef, CurrencySchema, currencyBody } from './schemas.ts';
import { type CurrencyQuery, selectCurrencies, selectNetworks } from './select.ts';

const AUTH = ['apiKey', 'clientId'] as const;
const TAGS = ['V2/Currencies'];

const CurrenciesQuery = Type.Object(
  {
    network: Type.Optional(Type.String({ minLength: 1 })),
    symbol: Type.Optional(Type.String({ minLength: 1 })),
    id: Type.Optional(Type.String({ minLength: 1 })),
    firstOnly: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

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

/** A field of a kept answer's key: absent, or its length and text (so no two lookups share one). */
const field = (value: string | undefined): string =>
  value === undefined ? '-' : `${value.length}:${value}`;
/** Distinct successful lookups whose answers are kept; past it the oldest is dropped. */
const MAX_KEPT_ANSWERS = 1_000;

export function currencyRoutes(app: App, deps: { chains: ChainRegistry }): void {
  app.addSchema(CurrencySchema);
  // The currencies of a process never change, so neither does the answer to a lookup: each is
  // serialised once. (The union response schema made Fastify's serialiser run Ajv on every
  // answer to pick a branch.)
  const answers = new Map<string, string>();
  const answerOf = (query: CurrencyQuery): string => {
    // Absent and empty are different lookups; only what selected is kept.
    const key =
      field(query.network) +
      field(query.symbol?.toLowerCase()) +
      field(query.id) +
      field(query.firstOnly);
    const kept = answers.get(key);
    if (kept !== undefined) return kept;
    const selection = selectCurrencies(deps.chains, query);
    const answer = JSON.stringify(
      selection.kind === 'one'
        ? currencyBody(selection.currency)
        : selection.currencies.map(currencyBody),
    );
    if (answers.size >= MAX_KEPT_ANSWERS) answers.delete(answers.keys().next().value ?? '');
    answers.set(key, answer);
    return answer;
  };

  app.get(
    '/v2/currencies',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Look up currencies',
        description:
          'Filters are ANDed. With `id`, or `firstOnly=true` (which needs `network` and `symbol`), the answer is one currency object; otherwise a list. No match: 404 `Token not found`.',
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

  app.get(
    '/v2/currencies/:currencyId/conversion-routes',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Payment currencies that can settle an invoice currency',
        params: Type.Object({ currencyId: Type.String({ minLength: 1 }) }),
        querystring: ConversionRoutesQuery,
        response: { 200: ConversionRoutesBody },
      },
    },
    async (request) => {
      const { currencyId } = request.params;
      const query = request.query;
      const scope = selectNetworks(deps.chains, query.network, query.networks);
      const invoice = deps.chains.currency(currencyId);
      if (invoice === undefined) throw new AppError('currency_not_found', 'Currency not found');
      if (scope.key === 'network') {
        const routes = conversionRoutes(deps.chains, invoice, [scope.id]).map(currencyBody);
        return { currencyId: invoice.id, network: scope.id, conversionRoutes: routes };
      }
      const routes = conversionRoutes(deps.chains, invoice, scope.ids).map(currencyBody);
      return { currencyId: invoice.id, networks: [...scope.ids], conversionRoutes: routes };
    },
  );
}
