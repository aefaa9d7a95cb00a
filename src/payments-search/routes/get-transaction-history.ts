import { Type } from 'typebox';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { MAX_OFFSET, MAX_PAGE_SIZE } from '../../http/pages.ts';
import { scopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { HISTORY_DEFAULT_LIMIT, transactionHistory } from '../history.ts';

const Query = Type.Object(
  {
    address: Type.String({
      minLength: 1,
      description: 'The wallet: an EVM address in any case, or a Tron one',
    }),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        description: `Items on the page, ${HISTORY_DEFAULT_LIMIT} when left out`,
      }),
    ),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, description: `Items to skip, at most ${MAX_OFFSET}` }),
    ),
  },
  { additionalProperties: false },
);

/** 0.31.0's 200 schema, which describes one item; the answer is a list of them. */
const Item = Type.Object(
  {
    type: Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')]),
    timestamp: Type.String({ format: 'date-time' }),
    from: Type.Optional(Type.String({ description: 'The sending wallet, when known' })),
    to: Type.String(),
    amountReceived: Type.String({ description: 'What the payee received, fee excluded' }),
    amountPaid: Type.String({ description: 'What the sender paid, fee included' }),
    paymentCurrency: Type.String({ description: 'A currency id, such as USDC-base' }),
    receivingCurrency: Type.String(),
    paymentChain: Type.String(),
    receivingChain: Type.String(),
    sourceTxHash: Type.String(),
    destinationTxHash: Type.String(),
  },
  { additionalProperties: false },
);

/** `deps` is read on each request, not captured at registration. */
export function registerGetTransactionHistory(
  app: App,
  deps: { db: Database; chains: ChainRegistry },
): void {
  app.get(
    '/v2/transaction-history',
    {
      config: { auth: ['clientId'] },
      schema: {
        tags: ['V2/Transaction History'],
        summary: 'A wallet’s payments, received (incoming) and sent (outgoing), newest first',
        description:
          'Among the payments of the requests made with the client ID. The answer is a JSON array of items (0.31.0 describes one item and no envelope); an empty array past the last one.',
        querystring: Query,
        response: { 200: Type.Array(Item) },
      },
    },
    async (request) => transactionHistory(deps.db, deps.chains, scopeOf(request), request.query),
  );
}
