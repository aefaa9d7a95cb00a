import type { LiFiStep, StatusResponse } from '@lifi/types';
import { AggregatorFailure } from './aggregator-http.ts';

/**
 * The aggregator's answers checked for the members payreq reads before anything trusts them:
 * an answer without them, or a route through another bridge than the one allowed, is the
 * aggregator failing (`bad_response`), not a route.
 */

const STATUSES: ReadonlySet<string> = new Set([
  'NOT_FOUND',
  'INVALID',
  'PENDING',
  'DONE',
  'FAILED',
]);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDigits(value: unknown): boolean {
  return typeof value === 'string' && /^\d+$/.test(value);
}

/**
 * A list of gas or fee costs as LI.FI gives them, or none: each with an amount in base units
 * and its token; a fee's USD value, when it says one, a number. Summed with BigInt (and a
 * fee's as money), anything else would fail the answer to the payer (a 500) or price the fee
 * as NaN.
 */
function isCosts(value: unknown, priced: boolean): boolean {
  if (value === undefined) return true;
  return (
    Array.isArray(value) &&
    value.every(
      (cost: unknown) =>
        isObject(cost) &&
        isDigits(cost.amount) &&
        isObject(cost.token) &&
        typeof cost.token.address === 'string' &&
        (!priced ||
          cost.amountUSD === undefined ||
          (typeof cost.amountUSD === 'string' && Number.isFinite(Number(cost.amountUSD)))),
    )
  );
}

function isToken(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.address === 'string' &&
    typeof value.decimals === 'number' &&
    typeof value.chainId === 'number'
  );
}

/** What is wrong with a step, or null. */
function stepProblem(step: unknown, bridge: string): string | null {
  if (!isObject(step)) return 'no step';
  if (step.type !== 'lifi' || typeof step.id !== 'string') return 'not a lifi step';
  const { action, estimate, transactionRequest: tx, includedSteps } = step;
  if (
    !isObject(action) ||
    typeof action.fromChainId !== 'number' ||
    typeof action.toChainId !== 'number' ||
    !isDigits(action.fromAmount) ||
    !isToken(action.fromToken) ||
    !isToken(action.toToken)
  ) {
    return 'no action';
  }
  if (
    !isObject(estimate) ||
    !isDigits(estimate.fromAmount) ||
    !isDigits(estimate.toAmount) ||
    typeof estimate.approvalAddress !== 'string'
  ) {
    return 'no estimate';
  }
  if (!isCosts(estimate.gasCosts, false) || !isCosts(estimate.feeCosts, true))
    return 'costs that are no amounts';
  if (!isObject(tx) || typeof tx.to !== 'string' || typeof tx.data !== 'string') {
    return 'no transactionRequest';
  }
  if (!Array.isArray(includedSteps)) return 'no includedSteps';
  const bridges = includedSteps.flatMap((inner: unknown) =>
    isObject(inner) && inner.type === 'cross' ? [String(inner.tool)] : [],
  );
  const other = bridges.find((tool) => tool !== bridge);
  if (other !== undefined || bridges.length === 0) {
    return `bridges through ${other ?? 'nothing'}, not ${bridge}`;
  }
  return null;
}

export function checkStep(answer: unknown, bridge: string, operation: string): LiFiStep {
  const problem = stepProblem(answer, bridge);
  if (problem !== null) {
    throw new AggregatorFailure('bad_response', null, `${operation}: ${problem}`);
  }
  return answer as LiFiStep;
}

export function checkStatus(answer: unknown, operation: string): StatusResponse {
  if (!isObject(answer) || typeof answer.status !== 'string' || !STATUSES.has(answer.status)) {
    throw new AggregatorFailure('bad_response', null, `${operation}: no status`);
  }
  if (answer.substatus !== undefined && typeof answer.substatus !== 'string') {
    throw new AggregatorFailure('bad_response', null, `${operation}: a substatus that is no name`);
  }
  return answer as unknown as StatusResponse;
}
