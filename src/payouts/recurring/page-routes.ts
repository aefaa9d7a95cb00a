import type { Clock } from '../../base/clock.ts';
import { AppError } from '../../base/errors.ts';
import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import { linkScopeOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { formatAmount } from '../../payments/amounts.ts';
import { scheduleApproval } from './approval.ts';
import { permitBody, referenceTransaction } from './create.ts';
import { activateWithSignature, decimalsOf, MESSAGES, notFound } from './routes.ts';
import {
  ActivateBody,
  ActivateResponse,
  PayerApprovalQuery,
  PayerApprovalResponse,
  PayerViewResponse,
  PayTokenParams,
} from './schemas.ts';
import { dueDateOf, findByPayToken, type RecurringPayoutRow } from './store.ts';

/**
 * The payer's side of a recurring payout, by its pay token (`payUrl`,
 * `PAY_URL/?recurring=<token>`): what the hosted page reads to show the schedule, the approval
 * the payer's wallet sends, and the signed permit it posts. The pay page's own client ID may
 * call them for any account's schedule (the token is the payer's capability, like a link's);
 * an account's own credentials reach only its own schedules, as on the id routes.
 */

const AUTH = ['clientId', 'apiKey', 'orchestratorPair', 'session'] as const;
const TAGS = ['V2/Payouts'];
const BASE = '/v2/payouts/recurring/token/:token';

export const PAYER_MISMATCH_MESSAGE =
  'Only the payer of this recurring payout (recurrence.payer) can approve and sign it';

export function payerPageRoutes(
  app: App,
  deps: { db: Database; clock: Clock; chains: ChainRegistry; clients: ChainClients },
): void {
  const load = async (request: Parameters<typeof linkScopeOf>[0], token: string) => {
    const row = await findByPayToken(deps.db, linkScopeOf(request), token);
    if (!row) throw notFound();
    return row;
  };

  app.get(
    BASE,
    {
      config: { auth: AUTH, payPage: true },
      schema: {
        tags: TAGS,
        summary: 'A recurring payout as its payer sees it, by its pay token',
        description:
          'What the hosted page shows (amount, payee, every payment date, status) and the `recurringPaymentPermit` the payer signs.',
        params: PayTokenParams,
        response: { 200: PayerViewResponse },
      },
    },
    async (request) => payerView(deps, await load(request, request.params.token)),
  );

  app.get(
    `${BASE}/approval`,
    {
      config: { auth: AUTH, payPage: true },
      schema: {
        tags: TAGS,
        summary: 'The approval of the recurring payment proxy the payer still needs',
        description:
          'The payer’s allowance is read from the chain now: the answer leaves the approval out once it is enough for every payment still to come (and the payer’s other schedules of the token).',
        params: PayTokenParams,
        querystring: PayerApprovalQuery,
        response: {
          200: PayerApprovalResponse,
          403: { description: 'Another wallet than the payer', $ref: 'ErrorEnvelope' },
        },
      },
    },
    async (request) => {
      const row = await load(request, request.params.token);
      const wallet = request.query.wallet;
      if (wallet !== undefined && wallet.toLowerCase() !== row.payer.toLowerCase()) {
        throw new AppError('recurring_payer_mismatch', PAYER_MISMATCH_MESSAGE);
      }
      refuseEnded(row);
      const { approvals, metadata } = await scheduleApproval(deps, row);
      return { transactions: approvals.map(referenceTransaction), metadata };
    },
  );

  app.post(
    BASE,
    {
      config: { auth: AUTH, payPage: true },
      schema: {
        tags: TAGS,
        summary: 'Activate a recurring payout with its payer’s signed permit, by its pay token',
        description:
          'The same as `POST /v2/payouts/recurring/{id}`: the signature is checked against the payer over the permit before it is stored.',
        params: PayTokenParams,
        body: ActivateBody,
        response: { 201: ActivateResponse },
      },
    },
    async (request, reply) => {
      const { token } = request.params;
      const row = await load(request, token);
      const body = await activateWithSignature(deps, row, request.body.permitSignature, () =>
        load(request, token),
      );
      return reply.code(201).send(body);
    },
  );
}

/** A cancelled or completed schedule pulls nothing more: no approval is offered for it. */
function refuseEnded(row: RecurringPayoutRow): void {
  if (row.status === 'cancelled') {
    throw new AppError('recurring_payout_cancelled', MESSAGES.alreadyCancelled);
  }
  if (row.status === 'completed') {
    throw new AppError('recurring_payout_completed', MESSAGES.alreadyCompleted);
  }
}

function payerView(deps: { chains: ChainRegistry }, row: RecurringPayoutRow) {
  const decimals = decimalsOf(deps, row);
  const scheduled = row.status === 'pending' || row.status === 'active';
  return {
    id: row.id,
    status: row.status,
    network: row.network,
    chainId: row.chainId,
    currency: row.currency,
    amount: formatAmount(row.amount, decimals),
    feeAmount: formatAmount(row.feeAmount, decimals),
    frequency: row.frequency,
    startDate: row.startDate.toISOString(),
    paymentDates: Array.from({ length: row.totalPayments }, (_, i) =>
      dueDateOf(row, i + 1).toISOString(),
    ),
    totalPayments: row.totalPayments,
    processedPayments: row.processedPayments,
    lastPaymentDate: row.lastPaymentAt?.toISOString() ?? null,
    nextPaymentDate: scheduled ? dueDateOf(row, row.processedPayments + 1).toISOString() : null,
    payer: row.payer,
    payee: row.payee,
    recurringPaymentPermit: permitBody(row),
  };
}
