import {
  type CircuitBreakerPolicy,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
} from 'cockatiel';
import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError } from 'viem';

/** Failed reads in a row, the RPC's fault, after which a network's reads fail at once. */
export const RPC_BREAKER_FAILURES = 3;
/** How long an open breaker refuses before one read goes through as a probe, in ms. */
export const RPC_BREAKER_HALF_OPEN_MS = 5_000;

/**
 * A network's circuit breaker around the reads that serve HTTP answers: after `failures` reads
 * in a row that failed because of the RPC (unreachable, timed out, an HTTP error, an answer that
 * is not a JSON-RPC one or not of the shape asked for, a JSON-RPC error other than a revert),
 * reads fail at once for `halfOpenMs`, asking nothing of the RPC, so a caller is answered in
 * milliseconds instead of waiting one RPC timeout each. Then one read goes through as a probe:
 * its success closes the breaker, its failure opens it for another period. A revert is the
 * node answering as it should, so it neither counts nor breaks a run of failures.
 * Detection does not go through it: it reads with its own client on its own schedule.
 */
export interface ReadBreaker {
  /** Runs a read; throws cockatiel's BrokenCircuitError (at once) while open. */
  execute<T>(read: () => Promise<T>): Promise<T>;
  /** Whole seconds until the breaker lets a probe through; at least 1, as `Retry-After`. */
  retryAfterSeconds(): number;
}

/** Whether a read's failure is the RPC's: what the breaker counts. */
export type RpcFault = (error: unknown) => boolean;

export function createReadBreaker(options: {
  failures: number;
  halfOpenMs: number;
  isFault: RpcFault;
}): ReadBreaker {
  const policy: CircuitBreakerPolicy = circuitBreaker(handleWhen(options.isFault), {
    halfOpenAfter: options.halfOpenMs,
    breaker: new ConsecutiveBreaker(options.failures),
  });
  // cockatiel times its open period with Date.now(); the remaining time is read the same way.
  let openedAt = 0;
  policy.onBreak(() => {
    openedAt = Date.now();
  });
  return {
    execute: (read) => policy.execute(read),
    retryAfterSeconds: () =>
      Math.max(1, Math.ceil((openedAt + options.halfOpenMs - Date.now()) / 1000)),
  };
}

/** A viem failure that is not a revert: the RPC could not be reached or answered wrongly. */
export function isViemRpcFault(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const revert = error.walk(
    (cause) =>
      cause instanceof ExecutionRevertedError || cause instanceof ContractFunctionRevertedError,
  );
  return revert === null;
}
