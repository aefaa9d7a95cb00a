import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { parseDateTime } from '../base/dates.ts';
import { AppError, featureUnavailable, ValidationError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { CURSOR_PAGE_QUERY, CURSOR_PAGINATION } from '../http/pages.ts';
import { accountIdOf, browserOriginOf, clientIdOf, linkScopeOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { checkPayerInputs, linkCalldata } from './calldata.ts';
import { createSecurePayment } from './create.ts';
import { destinationIdsOf, displayBody } from './display.ts';
import type { LinkCaller } from './link-caller.ts';
import { assertPayable, loadLink } from './links.ts';
import { listLinks } from './list.ts';
import { lookupLink } from './lookup.ts';
import { createMulticall } from './multicall.ts';
import {
  CreatedMulticallResponse,
  CreateMulticallBody,
  MulticallFailureResponse,
} from './multicall-schemas.ts';
import { multicallBody } from './multicall-view.ts';
import { createBatchPayoutLink, createPayoutLink } from './payouts.ts';
import {
  type AccessPolicy,
  BatchPayoutBody,
  CalldataInput,
  CalldataResponse,
  CompletedResponse,
  CreatedLinkResponse,
  CreatePayoutBody,
  CreateSecurePaymentBody,
  DisplayResponse,
  TokenParams,
} from './schemas.ts';

const AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;
const TAGS = ['V2/Secure Payment'];
const DEFAULT_PAGE = 20;

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
    /** The most children a multicall payout takes (`MULTICALL_MAX_CHILDREN`). */
    maxChildren: number;
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
      const created = await createSecurePayment(deps, caller(request), input);
      return reply.code(201).send({ ...created, feePlan: null });
    },
  );

  app.post(
    '/v2/secure-payments/payouts',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'Create a hosted payout link: one recipient, paid from creatorWalletAddress only (EVM or Tron)',
        body: CreatePayoutBody,
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
      const created = await createPayoutLink(deps, caller(request), input);
      return reply.code(201).send({ ...created, feePlan: null });
    },
  );

  app.post(
    '/v2/secure-payments/batch-payouts',
    {
      config: { auth: ['clientId', 'apiKey', 'session'] },
      schema: {
        tags: TAGS,
        summary:
          'Merge pending payout links of one network and creator wallet into one batch payout link; the merged links are invalidated',
        body: BatchPayoutBody,
        response: { 201: CreatedLinkResponse },
      },
    },
    async (request, reply) => {
      const created = await createBatchPayoutLink(deps, caller(request), request.body);
      return reply.code(201).send({ ...created, feePlan: null });
    },
  );

  app.post(
    '/v2/secure-payments/multicall-payouts',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary:
          'Pay several pending payout links of one network in one transaction: a multicall parent link',
        description:
          'Every child is checked; refused children are all listed in a 400 `multicall_validation_failed` (`failures`, and `cap` past MULTICALL_MAX_CHILDREN). Cross-chain (evm_cross_chain, or children on several networks) answers 400 until it is built.',
        body: CreateMulticallBody,
        response: { 201: CreatedMulticallResponse, 400: MulticallFailureResponse },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createMulticall(deps, caller(request), request.body)),
  );

  app.get(
    '/v2/secure-payments/multicall-payouts/:token',
    {
      // Server-side credentials (the reference takes a session only).
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: TAGS,
        summary:
          'A multicall payout: each child with whether it can be paid now (blockReason), and the totals',
        params: TokenParams,
        response: { 200: Type.Ref('MulticallView') },
      },
    },
    async (request) => {
      const link = await loadLink(deps.db, deps.clock, linkScopeOf(request), request.params.token);
      if (!link.children) {
        throw new AppError('secure_payment_not_found', 'Multicall payout not found');
      }
      return multicallBody(deps.chains, link, deps.clock.now());
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
      if (link.children) return multicallBody(deps.chains, link, deps.clock.now());
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
