import type {
  ContractCallsQuoteRequestFromAmount,
  ContractCallsQuoteRequestToAmount,
  LiFiStep,
  StatusResponse,
  ToolConfiguration,
} from '@lifi/types';
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
} from 'cockatiel';
import { AlternateStatusError } from '../base/errors.ts';
import type { CrosschainConfig } from '../config/crosschain.ts';
import { checkStatus, checkStep } from './aggregator-answers.ts';
import { AggregatorFailure, type AggregatorHttp, callAggregator } from './aggregator-http.ts';

/**
 * The routing aggregator of cross-chain payments: LI.FI's quote with contract calls, step
 * transaction and status operations, over HTTP, with every route held to one bridge
 * (`allowBridges`). A circuit breaker stands in front: after `breakerFailures` failed calls in a
 * row it answers 503 `crosschain_unavailable` at once, asking nothing of the aggregator, until
 * `breakerHalfOpenMs` have passed; then one call goes through as a probe, and its success
 * closes the breaker again (its failure opens it for another period).
 *
 * What callers see: an answer; `AggregatorRefusal` when the aggregator says no to this request
 * (no route, a bad token: not counted by the breaker); or `AlternateStatusError` 503 when it
 * fails (timeout, unreachable, 5xx or 429, an answer that is not one) or the breaker is open.
 */

/** A contract-calls quote as LI.FI takes it, less the tool filters: the adapter sets `allowBridges`. */
type ContractCallsQuote =
  | Omit<ContractCallsQuoteRequestFromAmount, keyof ToolConfiguration>
  | Omit<ContractCallsQuoteRequestToAmount, keyof ToolConfiguration>;

interface TransferStatusQuery {
  /** The source transaction. */
  readonly txHash: string;
  readonly fromChain: number;
  readonly toChain: number;
}

type BreakerState = 'closed' | 'open' | 'half-open';

export interface Aggregator {
  /** `POST /v1/quote/contractCalls`: one step whose source transaction bridges and calls. */
  quoteContractCalls(request: ContractCallsQuote): Promise<LiFiStep>;
  /** `POST /v1/advanced/stepTransaction`: the step with a fresh `transactionRequest`. */
  stepTransaction(step: LiFiStep): Promise<LiFiStep>;
  /** `GET /v1/status`: where the transfer the source transaction started stands. */
  status(query: TransferStatusQuery): Promise<StatusResponse>;
  breakerState(): BreakerState;
}

const OPEN_MESSAGE = 'Cross-chain routing is unavailable right now; try again shortly';

function failureWords(failure: AggregatorFailure, timeoutMs: number): string {
  switch (failure.reason) {
    case 'timeout':
      return `did not answer within ${timeoutMs} ms`;
    case 'network':
      return 'could not be reached';
    case 'http':
      return `answered HTTP ${failure.status}`;
    case 'bad_response':
      return 'gave an answer that is not one';
  }
}

export function createAggregator(deps: {
  readonly config: CrosschainConfig;
  /** Tests inject faults here; the global fetch otherwise. */
  readonly fetch?: typeof fetch;
}): Aggregator {
  const { config } = deps;
  const http: AggregatorHttp = {
    baseUrl: config.url,
    apiKey: config.apiKey?.reveal() ?? null,
    timeoutMs: config.timeoutMs,
    fetch: deps.fetch ?? fetch,
  };
  const breaker = circuitBreaker(
    handleWhen((error) => error instanceof AggregatorFailure),
    {
      halfOpenAfter: config.breakerHalfOpenMs,
      breaker: new ConsecutiveBreaker(config.breakerFailures),
    },
  );
  const retryAfter = String(Math.max(1, Math.ceil(config.breakerHalfOpenMs / 1000)));

  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await breaker.execute(call);
    } catch (error) {
      if (error instanceof BrokenCircuitError) {
        throw new AlternateStatusError('crosschain_unavailable', OPEN_MESSAGE, {
          headers: { 'retry-after': retryAfter },
          cause: error,
        });
      }
      if (error instanceof AggregatorFailure) {
        throw new AlternateStatusError(
          'crosschain_unavailable',
          `The cross-chain routing service ${failureWords(error, config.timeoutMs)}; try again shortly`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  return {
    quoteContractCalls: (request) =>
      guarded(async () => {
        const body = { ...request, allowBridges: [config.bridge] };
        const answer = await callAggregator(http, {
          method: 'POST',
          path: '/v1/quote/contractCalls',
          body,
        });
        return checkStep(answer, config.bridge, 'POST /v1/quote/contractCalls');
      }),
    stepTransaction: (step) =>
      guarded(async () => {
        const answer = await callAggregator(http, {
          method: 'POST',
          path: '/v1/advanced/stepTransaction',
          body: step,
        });
        return checkStep(answer, config.bridge, 'POST /v1/advanced/stepTransaction');
      }),
    status: (query) =>
      guarded(async () => {
        const answer = await callAggregator(http, {
          method: 'GET',
          path: '/v1/status',
          query: {
            txHash: query.txHash,
            bridge: config.bridge,
            fromChain: String(query.fromChain),
            toChain: String(query.toChain),
          },
        });
        return checkStatus(answer, 'GET /v1/status');
      }),
    breakerState: () => {
      switch (breaker.state) {
        case CircuitState.Closed:
          return 'closed';
        case CircuitState.HalfOpen:
          return 'half-open';
        case CircuitState.Open:
        case CircuitState.Isolated:
          return 'open';
      }
    },
  };
}
