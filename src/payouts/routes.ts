import { Type } from 'typebox';
import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Database } from '../db/client.ts';
import { accountIdOf, browserOriginOf, clientIdOf, linkScopeOf } from '../http/principal.ts';
import type { App } from '../http/types.ts';
import { linkCallerOf } from '../secure-payments/link-caller.ts';
import { checkAccessPolicy } from '../secure-payments/link-options.ts';
import { loadLink } from '../secure-payments/links.ts';
import {
  BatchPayoutBody as BatchPayoutLinkBody,
  CreatedLinkResponse,
  CreatePayoutBody,
  TokenParams,
} from '../secure-payments/schemas.ts';
import { createBatchPayout } from './batch.ts';
import { createPayout } from './create.ts';
import { createBatchPayoutLink } from './links/batch.ts';
import { createPayoutLink } from './links/create.ts';
import { createMulticall } from './multicall/create.ts';
import {
  CreatedMulticallResponse,
  CreateMulticallBody,
  MulticallFailureResponse,
} from './multicall/schemas.ts';
import { multicallBody } from './multicall/view.ts';
import { payerPageRoutes } from './recurring/page-routes.ts';
import { recurringPayoutRoutes } from './recurring/routes.ts';
import { BatchPayoutBody, BatchPayoutResponse, PayoutBody, PayoutResponse } from './schemas.ts';

const AUTH = ['apiKey', 'clientId'] as const;
const TAGS = ['V2/Payouts'];
const LINK_AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;
const LINK_TAGS = ['V2/Secure Payment'];

export function payoutRoutes(
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
  const callerOf = (request: Parameters<typeof accountIdOf>[0]) => ({
    accountId: accountIdOf(request),
    clientId: clientIdOf(request),
    origin: browserOriginOf(request),
  });

  app.post(
    '/v2/payouts',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Pay someone: a request to `payee` and the calldata that pays it',
        description:
          'With a payer wallet (`payerWallet`, or `payerAddress` or `payer`), its balance and allowance are read and the approval is left out when it is not needed. With `recurrence`, a recurring payout: `id`, the approval of the recurring payment proxy for every payment (when the allowance is short), the `recurringPaymentPermit` to sign and `metadata {stepsRequired, totalNeededAllowance, currentAllowance, additionalAllowanceNeeded, existingPaymentsAmount}`.',
        body: PayoutBody,
        response: { 201: PayoutResponse },
      },
    },
    async (request, reply) => {
      const body = await createPayout(deps, callerOf(request), request.body, clientIdOf(request));
      return reply.code(201).send(body);
    },
  );

  app.post(
    '/v2/payouts/batch',
    {
      config: { auth: AUTH },
      schema: {
        tags: TAGS,
        summary: 'Pay several requests in one transaction on one EVM network',
        description:
          'New requests (`requests`) or existing ones (`requestIds`), up to 200, ERC20 of several tokens and the native currency mixed. Send the approvals, then the batch transaction.',
        body: BatchPayoutBody,
        response: { 201: BatchPayoutResponse },
      },
    },
    async (request, reply) => {
      return reply.code(201).send(await createBatchPayout(deps, callerOf(request), request.body));
    },
  );

  app.post(
    '/v2/secure-payments/payouts',
    {
      config: { auth: LINK_AUTH },
      schema: {
        tags: LINK_TAGS,
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
      const created = await createPayoutLink(deps, linkCallerOf(request), input);
      return reply.code(201).send({ ...created, feePlan: null });
    },
  );

  app.post(
    '/v2/secure-payments/batch-payouts',
    {
      config: { auth: ['clientId', 'apiKey', 'session'] },
      schema: {
        tags: LINK_TAGS,
        summary:
          'Merge pending payout links of one network and creator wallet into one batch payout link; the merged links are invalidated',
        body: BatchPayoutLinkBody,
        response: { 201: CreatedLinkResponse },
      },
    },
    async (request, reply) => {
      const created = await createBatchPayoutLink(deps, linkCallerOf(request), request.body);
      return reply.code(201).send({ ...created, feePlan: null });
    },
  );

  app.post(
    '/v2/secure-payments/multicall-payouts',
    {
      config: { auth: LINK_AUTH },
      schema: {
        tags: LINK_TAGS,
        summary:
          'Pay several pending payout links of one network in one transaction: a multicall parent link',
        description:
          'Every child is checked; refused children are all listed in a 400 `multicall_validation_failed` (`failures`, and `cap` past MULTICALL_MAX_CHILDREN). Cross-chain (evm_cross_chain, or children on several networks) answers 400 until it is built.',
        body: CreateMulticallBody,
        response: { 201: CreatedMulticallResponse, 400: MulticallFailureResponse },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createMulticall(deps, linkCallerOf(request), request.body)),
  );

  app.get(
    '/v2/secure-payments/multicall-payouts/:token',
    {
      // Server-side credentials (the reference takes a session only).
      config: { auth: ['apiKey', 'session'] },
      schema: {
        tags: LINK_TAGS,
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

  recurringPayoutRoutes(app, deps);
  payerPageRoutes(app, deps);
}
