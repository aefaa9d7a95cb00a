import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { nextCursor } from '../db/keyset.ts';
import { PAGE_QUERY, PAGINATION, pageStart } from '../http/pages.ts';
import { accountIdOf, browserOriginOf, clientIdOf, scopeOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { paymentsOfRequests } from '../payments/records.ts';
import { createRequest } from './create.ts';
import { requestCalldata } from './pay.ts';
import { seriesOf, setRecurrenceStopped } from './recurring.ts';
import { findRequest, type RequestRow, requestListQuery } from './requests.ts';
import {
  CreateRequestBody,
  PayQuery,
  PayResponse,
  REQUEST_STATUS_ID,
  RequestStatusSchema,
  UpdateRequestBody,
} from './schemas.ts';
import { requestStatusBody } from './status.ts';

const AUTH = ['apiKey', 'clientId', 'session'] as const;
const TAGS = ['V2/Request'];
const DEFAULT_PAGE = 20;

const RequestParams = Type.Object({ requestId: Type.String({ minLength: 1, maxLength: 128 }) });

export function requestRoutes(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry; clients: ChainClients },
): void {
  app.addSchema(RequestStatusSchema);
  const RequestStatusRef = Type.Ref(REQUEST_STATUS_ID);

  const statusOf = async (row: RequestRow) => {
    const [payments, series] = await Promise.all([
      paymentsOfRequests(deps.db, [row.id]),
      seriesOf(deps.db, row.accountId, [row]),
    ]);
    return requestStatusBody(
      deps.chains,
      row,
      payments.get(row.id) ?? [],
      series.get(row.requestId) ?? null,
    );
  };

  app.post(
    '/v2/request',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create a payment request',
        body: CreateRequestBody,
        response: {
          201: Type.Object({ paymentReference: Type.String(), requestId: Type.String() }),
        },
      },
    },
    async (request, reply) => {
      const row = await createRequest(
        deps,
        {
          accountId: accountIdOf(request),
          clientId: clientIdOf(request),
          origin: browserOriginOf(request),
        },
        request.body,
      );
      return reply
        .code(201)
        .send({ paymentReference: `0x${row.paymentReference}`, requestId: row.requestId });
    },
  );

  app.get(
    '/v2/request',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'The account’s requests (a client ID’s: those made with it), newest first; walletAddress narrows to one payee',
        querystring: Type.Object(
          {
            walletAddress: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            ...PAGE_QUERY,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            requests: Type.Array(RequestStatusRef),
            pagination: Type.Object({
              ...PAGINATION,
            }),
          }),
        },
      },
    },
    async (request) => {
      const { query } = request;
      const limit = query.limit ?? DEFAULT_PAGE;
      const { offset, after } = pageStart(query);
      const wallet =
        query.walletAddress === undefined
          ? undefined
          : parseAddress(query.walletAddress, { allowZero: true });
      const rows = await requestListQuery(deps.db, scopeOf(request), {
        // A query that is no address matches nothing (no key is ever that text).
        payeeKey:
          wallet === undefined ? undefined : wallet.ok ? addressKey(wallet) : query.walletAddress,
        limit: limit + 1,
        offset,
        after,
      });
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const [payments, series] = await Promise.all([
        paymentsOfRequests(
          deps.db,
          page.map((row) => row.request.id),
        ),
        seriesOf(
          deps.db,
          scopeOf(request).accountId,
          page.map((row) => row.request),
        ),
      ]);
      return {
        requests: page.map(({ request: row }) =>
          requestStatusBody(
            deps.chains,
            row,
            payments.get(row.id) ?? [],
            series.get(row.requestId) ?? null,
          ),
        ),
        pagination: {
          limit,
          offset,
          hasMore,
          nextCursor: nextCursor(
            page.map((row) => ({ cursorAt: row.cursorAt, id: row.request.id })),
            hasMore,
          ),
        },
      };
    },
  );

  app.get(
    '/v2/request/:requestId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'A request’s status and payments',
        params: RequestParams,
        response: { 200: RequestStatusRef },
      },
    },
    async (request) => {
      const row = await findRequest(deps.db, accountIdOf(request), request.params.requestId);
      if (!row) throw new AppError('request_not_found', 'Request not found');
      return statusOf(row);
    },
  );

  app.patch(
    '/v2/request/:requestId',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Stop or resume a recurring request’s series',
        description:
          'On the original or any occurrence: acts on their series. Stopped, no further occurrence is made; resumed, the next is the first dated after now (none skipped meanwhile is made). 400 request_not_recurring for a request of no series.',
        params: RequestParams,
        body: UpdateRequestBody,
        response: { 200: RequestStatusRef },
      },
    },
    async (request) => {
      const row = await findRequest(deps.db, accountIdOf(request), request.params.requestId);
      if (!row) throw new AppError('request_not_found', 'Request not found');
      await setRecurrenceStopped(deps.db, row, request.body.isRecurrenceStopped, deps.clock.now());
      return statusOf(row);
    },
  );

  app.get(
    '/v2/request/:requestId/pay',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Calldata to pay a request (all of what is still due, or `amount` of it)',
        description:
          'Without `wallet` nothing is read from the chain: an approval is always included, and hasEnoughBalance and hasEnoughGas read true.',
        params: RequestParams,
        querystring: PayQuery,
        response: { 200: PayResponse },
      },
    },
    async (request) => {
      const row = await findRequest(deps.db, accountIdOf(request), request.params.requestId);
      if (!row) throw new AppError('request_not_found', 'Request not found');
      return requestCalldata(deps, row, request.query, clientIdOf(request));
    },
  );
}
