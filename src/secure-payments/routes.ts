import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import { parseDateTime } from '../dates.ts';
import type { Database } from '../db/client.ts';
import { ValidationError } from '../errors.ts';
import { accountIdOf, clientIdOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { CALLDATA_SCHEMAS } from '../payments/schemas.ts';
import { linkCalldata } from './calldata.ts';
import { createSecurePayment, type LinkCaller } from './create.ts';
import { assertPayable, destinationIdsOf, displayBody, listLinks, loadLink } from './links.ts';

const AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;
const TAGS = ['V2/Secure Payment'];
const MAX_REQUESTS = 200;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

const TokenParams = Type.Object({ token: Type.String({ pattern: '^[0-9A-Za-z]{26}$' }) });

const CalldataInput = {
  wallet: Type.Optional(Type.String({ minLength: 1 })),
  eoaWallet: Type.Optional(Type.String({ minLength: 1 })),
  isSafe: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  chain: Type.Optional(
    Type.Union(
      ['BASE', 'OPTIMISM', 'ARBITRUM', 'ETHEREUM', 'POLYGON', 'BNB'].map((c) => Type.Literal(c)),
    ),
  ),
  token: Type.Optional(Type.Union(['USDC', 'USDT', 'EURC', 'USDT0'].map((c) => Type.Literal(c)))),
};

const CalldataResponse = Type.Union([Type.Ref('SingleCalldata'), Type.Ref('BatchCalldata')]);

const Destination = Type.Object({
  destinationId: Type.Union([Type.String(), Type.Null()]),
  payeeAddress: Type.String(),
  tokenAddress: Type.Union([Type.String(), Type.Null()]),
  walletAddress: Type.String(),
  network: Type.String(),
  isMasked: Type.Boolean(),
});

const DisplayCommon = {
  status: Type.String(),
  token: Type.String(),
  redirectUrl: Type.Union([Type.String(), Type.Null()]),
  redirectLabel: Type.String(),
  branding: Type.Record(Type.String(), Type.Unknown()),
  requestIds: Type.Array(Type.String()),
  network: Type.String(),
  reference: Type.Union([Type.String(), Type.Null()]),
  feePlan: Type.Null(),
  expiresAt: Type.String({ format: 'date-time' }),
};

const DisplayResponse = Type.Union([
  Type.Object({
    paymentType: Type.Literal('single'),
    ...DisplayCommon,
    payee: Type.String(),
    amount: Type.String(),
    paymentCurrency: Type.String(),
    isNativeCurrency: Type.Boolean(),
    destination: Destination,
  }),
  Type.Object({
    paymentType: Type.Literal('batch'),
    ...DisplayCommon,
    payees: Type.Array(Type.String()),
    amounts: Type.Array(Type.String()),
    paymentCurrencies: Type.Array(Type.String()),
    isNativeCurrency: Type.Array(Type.Boolean()),
    destinations: Type.Array(Destination),
  }),
]);

const CompletedResponse = Type.Object({
  statusCode: Type.Integer(),
  message: Type.String(),
  error: Type.String(),
  code: Type.String(),
  status: Type.String(),
  branding: Type.Record(Type.String(), Type.Unknown()),
  requestStatuses: Type.Array(
    Type.Object({
      requestId: Type.String(),
      hasBeenPaid: Type.Boolean(),
      txHash: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

function caller(request: FastifyRequest): LinkCaller {
  return {
    accountId: accountIdOf(request),
    clientId: clientIdOf(request),
    orchestrated: request.principal?.kind === 'orchestratorPair',
  };
}

function isoDate(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = parseDateTime(value);
  if (date === null)
    throw new ValidationError([
      {
        field,
        message: 'must be an ISO 8601 date-time with a time zone, such as 2026-01-31T00:00:00Z',
      },
    ]);
  return date;
}

export function securePaymentRoutes(
  app: App,
  deps: {
    db: Database;
    clock: Clock;
    chains: ChainRegistry;
    clients: ChainClients;
    payUrl: string;
  },
): void {
  for (const schema of CALLDATA_SCHEMAS) app.addSchema(schema);

  app.post(
    '/v2/secure-payments',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create a secure payment link (one request, or several on one EVM network)',
        body: Type.Object(
          {
            requests: Type.Array(
              Type.Object(
                {
                  destinationId: Type.Optional(Type.String({ minLength: 1 })),
                  amount: Type.String(),
                },
                { additionalProperties: false },
              ),
              { minItems: 1, maxItems: MAX_REQUESTS },
            ),
            reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            payerIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            redirectUrl: Type.Optional(Type.String({ maxLength: 2048 })),
            redirectLabel: Type.Optional(Type.String()),
            feePercentage: Type.Optional(
              Type.String({ deprecated: true, description: 'Ignored: fees come from the server' }),
            ),
            feeAddress: Type.Optional(Type.String({ deprecated: true, description: 'Ignored' })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            securePaymentUrl: Type.String(),
            requestIds: Type.Array(Type.String()),
            token: Type.String(),
            feePlan: Type.Null(),
          }),
        },
      },
    },
    async (request, reply) => {
      const { feePercentage: _ignored, feeAddress: _alsoIgnored, ...input } = request.body;
      const created = await createSecurePayment(deps, caller(request), input);
      return reply.code(201).send({ ...created, feePlan: null });
    },
  );

  app.get(
    '/v2/secure-payments',
    {
      // Server-side credentials only: a client ID may be a browser's, public by nature (the
      // reference API takes only a session here).
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: TAGS,
        summary: 'List the account’s secure payments, newest first',
        querystring: Type.Object(
          {
            requestId: Type.Optional(Type.String({ minLength: 1 })),
            payout: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
            createdFrom: Type.Optional(Type.String()),
            createdTo: Type.Optional(Type.String()),
            cursor: Type.Optional(Type.String()),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            securePayments: Type.Array(Type.Record(Type.String(), Type.Unknown())),
            pagination: Type.Object({
              limit: Type.Integer(),
              nextCursor: Type.Union([Type.String(), Type.Null()]),
              hasMore: Type.Boolean(),
            }),
          }),
        },
      },
    },
    async (request) => {
      const q = request.query;
      return listLinks(deps.db, deps.clock, deps.payUrl, accountIdOf(request), {
        requestId: q.requestId,
        payout: q.payout === undefined ? undefined : q.payout === 'true',
        createdFrom: isoDate(q.createdFrom, 'createdFrom'),
        createdTo: isoDate(q.createdTo, 'createdTo'),
        cursor: q.cursor,
        limit: q.limit ?? DEFAULT_PAGE,
      });
    },
  );

  app.get(
    '/v2/secure-payments/:token',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'What the pay page shows: amounts, payees, status, branding',
        params: TokenParams,
        response: {
          200: DisplayResponse,
          403: { description: 'Expired or no longer payable', $ref: 'ErrorEnvelope' },
          409: { ...CompletedResponse, description: 'Already completed' },
        },
      },
    },
    async (request) => {
      const link = await loadLink(deps.db, deps.clock, accountIdOf(request), request.params.token);
      assertPayable(link);
      return displayBody(deps.chains, link, await destinationIdsOf(deps.db, link));
    },
  );

  const calldataSchema = {
    tags: TAGS,
    params: TokenParams,
    response: {
      200: CalldataResponse,
      403: { description: 'Expired or no longer payable', $ref: 'ErrorEnvelope' },
      409: { ...CompletedResponse, description: 'Already completed' },
      502: { description: 'The network’s RPC failed', $ref: 'ErrorEnvelope' },
      503: { description: 'The network is not configured', $ref: 'ErrorEnvelope' },
    },
  };

  app.get(
    '/v2/secure-payments/:token/pay',
    {
      config: { auth: AUTH },
      schema: {
        ...calldataSchema,
        summary: 'Executable calldata (single or batch) for a payer wallet',
        querystring: Type.Object(CalldataInput, { additionalProperties: false }),
      },
    },
    async (request) =>
      linkCalldata(deps, accountIdOf(request), request.params.token, request.query),
  );

  app.post(
    '/v2/secure-payments/:token/calldata',
    {
      config: { auth: AUTH },
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
      linkCalldata(deps, accountIdOf(request), request.params.token, request.body ?? {}),
  );
}
