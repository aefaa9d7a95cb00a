import type { FastifyRequest } from 'fastify';
import { AppError } from '../../base/errors.ts';
import { type CallerScope, scopeOf } from '../../http/principal.ts';
import type { CommerceDeps } from '../deps.ts';
import { type ActionPlan, type ActionResult, executeAction } from '../execute.ts';
import { formatted } from '../format.ts';
import { serverSigns } from '../operator.ts';
import { findCommercePayment } from '../store.ts';

/**
 * What every execute route (`/authorize`, `/capture`, `/refund`, `/void`) does with its plan:
 * sends it for the caller and answers the payment, its status, the transaction and an amount
 * (by default the action's), which the route names (`amount`, `captureAmount`, `refundAmount`,
 * `voidedAmount`).
 */
export async function executeRoute(
  deps: CommerceDeps,
  request: FastifyRequest<{ Params: { requestId: string } }>,
  plan: ActionPlan,
  amountOf: (result: ActionResult) => bigint = (result) => result.amount,
) {
  const scope = scopeOf(request);
  await refuseClientIdSigning(deps, request, scope, plan);
  const result = await executeAction(deps, scope, request.params.requestId, plan);
  return {
    requestId: result.payment.requestId,
    status: result.state.status,
    transactionHash: result.transactionHash,
    amount: formatted(deps.chains, result.payment, amountOf(result)),
  };
}

/**
 * A client ID is public (a shop's pages carry it), so it never has the server sign with its
 * own operator key (`COMMERCE_OPERATOR_KEY`, or the sandbox's development operator): anyone
 * reading the shop's page could otherwise capture a buyer's hold to a fee receiver of theirs,
 * or void it. Such a call takes a secret credential (an API key); a client ID may still send
 * the operator's own `signedTransaction`, whose key is then the authority. Refused before
 * anything is reserved or sent. Payments whose operator's key the server does not hold go on
 * to `signed_transaction_required` as before.
 */
async function refuseClientIdSigning(
  deps: CommerceDeps,
  request: FastifyRequest<{ Params: { requestId: string } }>,
  scope: CallerScope,
  plan: ActionPlan,
): Promise<void> {
  const kind = request.principal?.kind;
  if (kind === 'apiKey' || kind === 'session' || plan.signedTransaction !== undefined) return;
  const payment = await findCommercePayment(deps.db, scope, request.params.requestId);
  if (serverSigns(payment.operator, deps.operator(payment.network)) === null) return;
  throw new AppError(
    'commerce_client_id_cannot_sign',
    `A client ID is public: the server does not sign this ${plan.kind} with its operator key for it. Call with x-api-key, or send the operator's own signedTransaction of the /calldata answer`,
  );
}
