import type { MaybePromise } from '../base/maybe.ts';

/**
 * What a rate-limit store is: a sliding log of hits per key, in memory or in Redis. Both stores
 * and the limiter over them speak these types.
 */

export interface HitResult {
  readonly allowed: boolean;
  /** Hits the caller may still make now (0 once refused). */
  readonly remaining: number;
  /**
   * Until the oldest counted hit leaves the window, so one more hit is allowed (a full window
   * for a caller's first hit); for a blocked caller, until the block ends.
   */
  readonly resetMs: number;
  /** The caller is serving a block for a sustained breach. */
  readonly blocked: boolean;
}

/** Pino's and Fastify's loggers both fit. */
export interface WarnLogger {
  warn(details: object, message: string): void;
}

/** One hit at `now` against a key's log; the same rule in every store. */
interface LogHit {
  readonly key: string;
  readonly now: number;
  readonly limit: number;
  readonly windowMs: number;
  /** Block the key this long once it is refused `limit` times within a window; 0: never. */
  readonly blockMs: number;
  /** Only look: answer as for a hit, recording nothing. */
  readonly peek?: boolean;
}

export interface LogStore {
  hit(hit: LogHit): MaybePromise<HitResult>;
  close(): Promise<void>;
}
