import { ConfigError, type Env, parseInteger } from './readers.ts';

/** What a process does between SIGTERM (or SIGINT) and its exit. */
export interface ShutdownConfig {
  /**
   * How long `/readyz` answers 503 while everything else still serves (`SHUTDOWN_DRAIN_MS`,
   * default 0): the time a load balancer needs to see it and send no more requests here.
   */
  readonly drainMs: number;
  /**
   * The whole budget from the signal to the exit, drain included (`SHUTDOWN_TIMEOUT_MS`,
   * default 10,000); past it the process exits 1 with whatever was left unfinished.
   */
  readonly timeoutMs: number;
}

export function parseShutdown(env: Env): ShutdownConfig {
  const drainMs = parseInteger(env, 'SHUTDOWN_DRAIN_MS', 0, 300_000) ?? 0;
  const timeoutMs = parseInteger(env, 'SHUTDOWN_TIMEOUT_MS', 1_000, 600_000) ?? 10_000;
  // A drain as long as the budget would leave nothing to close the process with.
  if (drainMs >= timeoutMs) {
    throw new ConfigError(
      'SHUTDOWN_DRAIN_MS',
      `must be less than SHUTDOWN_TIMEOUT_MS (${timeoutMs}), which includes it`,
    );
  }
  return { drainMs, timeoutMs };
}
