import type { FastifyRequest } from 'fastify';
import { scopeOf } from '../../http/principal.ts';
import type { CommerceDeps } from '../deps.ts';
import { type ActionPlan, type ActionResult, executeAction } from '../execute.ts';
import { formatted } from '../format.ts';

/**
 * What every execute route (`/capture`, `/refund`, `/void`) does with its plan: sends it for
 * the caller and answers the payment, its status, the transaction and an amount (by default
 * the action's), which the route names (`captureAmount`, `refundAmount`, `voidedAmount`).
 */
export async function executeRoute(
  deps: CommerceDeps,
  request: FastifyRequest<{ Params: { requestId: string } }>,
  plan: ActionPlan,
  amountOf: (result: ActionResult) => bigint = (result) => result.amount,
) {
  const result = await executeAction(deps, scopeOf(request), request.params.requestId, plan);
  return {
    requestId: result.payment.requestId,
    status: result.state.status,
    transactionHash: result.transactionHash,
    amount: formatted(deps.chains, result.payment, amountOf(result)),
  };
}
