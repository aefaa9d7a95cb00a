import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { parseDateTime } from '../base/dates.ts';
import { ValidationError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { CURSOR_PAGE_QUERY, CURSOR_PAGINATION } from '../http/pages.ts';
import { accountIdOf, linkScopeOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { checkPayerInputs, linkCalldata } from './calldata.ts';
import { createSecurePayment } from './create.ts';
import { destinationIdsOf, displayBody } from './display.ts';
import { linkCallerOf } from './link-caller.ts';
import { checkAccessPolicy } from './link-options.ts';
import { assertPayable, loadLink } from './links.ts';
import { listLinks } from './list.ts';
import { lookupLink } from './lookup.ts';
import type { ParentLinks } from './parent-links.ts';
import {
  CalldataInput,
  CalldataResponse,
  CompletedResponse,
  CreatedLinkResponse,
  CreateSecurePaymentBody,
  DisplayResponse,
  TokenParams,
} from './schemas.ts';

const AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;
const TAGS = ['V2/Secure Payment'];
const DEFAULT_PAGE = 20;

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
    /** How multicall parents are shown and paid (payouts). */
    parents: ParentLinks;
  },
): void {
  app.post(
    '/v2/secure-payments',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Create a secure payment link (one request, or several on one EVM network)',
        body: CreateSecurePaymentBody,
        response: { 201: CreatedLinkResponse },
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
      const created = await createSecurePayment(deps, linkCallerOf(request), input);
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
            ...CURSOR_PAGE_QUERY,
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
              pagination: Type.Object(CURSOR_PAGINATION),
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
      config: { auth: AUTH, payPage: true },
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
      const link = await loadLink(deps.db, deps.clock, linkScopeOf(request), request.params.token);
      await assertPayable(deps.db, link);
      checkPayerInputs(link, request.query);
      if (link.children) return deps.parents.display(link, deps.clock.now());
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
      config: { auth: AUTH, payPage: true },
      schema: {
        ...calldataSchema,
        summary: 'Executable calldata (single or batch) for a payer wallet',
        querystring: Type.Object(CalldataInput, { additionalProperties: false }),
      },
    },
    async (request) =>
      linkCalldata(deps, linkScopeOf(request), request.params.token, request.query),
  );

  app.post(
    '/v2/secure-payments/:token/calldata',
    {
      config: { auth: AUTH, payPage: true },
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
