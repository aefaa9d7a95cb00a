import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Clock } from '../clock.ts';
import { parseDateTime } from '../dates.ts';
import type { Database } from '../db/client.ts';
import { featureUnavailable, ValidationError } from '../errors.ts';
import { accountIdOf, browserOriginOf, clientIdOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { checkPayerInputs, linkCalldata } from './calldata.ts';
import { createSecurePayment, type LinkCaller } from './create.ts';
import { destinationIdsOf, displayBody } from './display.ts';
import { assertPayable, loadLink } from './links.ts';
import { listLinks } from './list.ts';
import { lookupLink } from './lookup.ts';

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

const Destination = Type.Union([
  Type.Object({
    destinationId: Type.Optional(Type.String()),
    payeeAddress: Type.String(),
    tokenAddress: Type.String(),
    walletAddress: Type.String(),
    network: Type.String(),
    isMasked: Type.Boolean(),
  }),
  Type.Null(),
]);

const DisplayCommon = {
  status: Type.String(),
  token: Type.String(),
  redirectUrl: Type.Union([Type.String(), Type.Null()]),
  redirectLabel: Type.String(),
  branding: Type.Null({
    description: 'Null until the link is branded: the page uses its defaults',
  }),
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
  branding: Type.Null(),
  requestStatuses: Type.Array(
    Type.Object({
      requestId: Type.String(),
      hasBeenPaid: Type.Boolean(),
      txHash: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

/** The reference's per-link access policy (api-facts §2.3); KYT and payer rules are not built yet. */
const AccessPolicy = Type.Object(
  {
    mode: Type.Optional(
      Type.Union([Type.Literal('inherit'), Type.Literal('off'), Type.Literal('kyt_all_wallets')]),
    ),
    screeningProvider: Type.Optional(
      Type.Union([Type.Literal('hypernative'), Type.Literal('merklescience'), Type.Null()]),
    ),
    hideUntilApproved: Type.Optional(Type.Boolean()),
    hidePayeeAddress: Type.Optional(Type.Boolean()),
    allowedPayerAddresses: Type.Optional(Type.Array(Type.String(), { maxItems: 1000 })),
  },
  {
    additionalProperties: false,
    description:
      'Accepted with its neutral values (mode inherit or off, no provider, nothing hidden, no allowlist); screening, hiding and payer allowlists answer 400 until they are built',
  },
);

/** Only a policy that changes nothing is accepted until screening and payer rules exist. */
function checkAccessPolicy(policy: Static<typeof AccessPolicy> | undefined): void {
  if (policy === undefined) return;
  if (policy.mode === 'kyt_all_wallets' || (policy.screeningProvider ?? null) !== null)
    throw featureUnavailable('KYT screening of payers (accessPolicy.mode, screeningProvider)');
  if (policy.hideUntilApproved === true || policy.hidePayeeAddress === true)
    throw featureUnavailable(
      'Hiding link details (accessPolicy.hideUntilApproved, hidePayeeAddress)',
    );
  if ((policy.allowedPayerAddresses ?? []).length > 0)
    throw featureUnavailable('Payer allowlists (accessPolicy.allowedPayerAddresses)');
}

function caller(request: FastifyRequest): LinkCaller {
  return {
    accountId: accountIdOf(request),
    clientId: clientIdOf(request),
    orchestrated: request.principal?.kind === 'orchestratorPair',
    origin: browserOriginOf(request),
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
            accessPolicy: Type.Optional(AccessPolicy),
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
      const {
        feePercentage: _ignored,
        feeAddress: _alsoIgnored,
        accessPolicy,
        ...input
      } = request.body;
      checkAccessPolicy(accessPolicy);
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
        summary:
          'The link of one request (requestId alone: the reference’s lookup object, 404 if none), or a list of the account’s links, newest first',
        querystring: Type.Object(
          {
            requestId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
            payout: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
            createdFrom: Type.Optional(Type.String({ maxLength: 64 })),
            createdTo: Type.Optional(Type.String({ maxLength: 64 })),
            cursor: Type.Optional(Type.String({ maxLength: 256 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Union([
            Type.Record(Type.String(), Type.Unknown(), {
              description: 'requestId alone: the link of that request',
            }),
            Type.Object({
              securePayments: Type.Array(Type.Record(Type.String(), Type.Unknown())),
              pagination: Type.Object({
                limit: Type.Integer(),
                nextCursor: Type.Union([Type.String(), Type.Null()]),
                hasMore: Type.Boolean(),
              }),
            }),
          ]),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { requestId, ...others } = q;
      if (requestId !== undefined && Object.keys(others).length === 0) {
        return lookupLink(deps, deps.payUrl, accountIdOf(request), requestId);
      }
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
        description:
          'Takes the payer inputs of /pay, checked the same way; balances per source (paymentOptions) are not given yet.',
        params: TokenParams,
        querystring: Type.Object(CalldataInput, { additionalProperties: false }),
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
      checkPayerInputs(link, request.query);
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
