import type { Clock } from '../base/clock.ts';
import type { MaybePromise } from '../base/maybe.ts';

/**
 * What the credential hook looked up, kept for a short while so that a busy caller costs one
 * database lookup per `CREDENTIAL_CACHE_MS`, not one per request. Only credentials that
 * resolved are kept (an unknown key is looked up every time, so a key made a moment ago by
 * another process works at once). The functions that change what a lookup returns (a key
 * revoked, a client ID edited, revoked or rebound to another destination) call
 * `credentialsChanged()` once written, which makes every cache of this process forget what it
 * holds; a change made by another process (another instance, the CLI) takes effect here within
 * `CREDENTIAL_CACHE_MS`, or at once when the processes share Redis (credential-broadcast.ts
 * tells the others, which call `forgetCredentials()`).
 *
 * Keys name the credential as it was sent, an API key included (a digest of it per request was
 * the costliest step of an authenticated request): they live in this process's memory only,
 * and entries past their lifetime are swept by the first lookup a lifetime after the last sweep.
 */

/** How long a looked-up credential is trusted without asking the database again. */
export const CREDENTIAL_CACHE_MS = 5_000;
/** The most credentials kept; past it the oldest are dropped first. */
const MAX_ENTRIES = 10_000;

export interface CredentialCache {
  /**
   * `load()`'s answer for `key`, from the cache while fresh (at once, without a promise: the
   * credential hook runs on every request); kept only when `keep` says.
   */
  get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean): MaybePromise<T>;
  /** Entries held, fresh or not (for tests of the sweeping). */
  size(): number;
}

/** Changes made in this process so far: an entry stored before the latest change is stale. */
let changes = 0;

/** Told of each change made in this process (the Redis broadcast). */
const listeners = new Set<() => void>();

/** Credentials changed in this process: every cache forgets what it holds, and others are told. */
export function credentialsChanged(): void {
  changes += 1;
  for (const listener of listeners) listener();
}

/** Credentials changed in another process: every cache of this one forgets what it holds. */
export function forgetCredentials(): void {
  changes += 1;
}

/** Calls `listener` after each change made in this process; returns how to stop. */
export function onCredentialsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function createCredentialCache(deps: {
  readonly clock: Clock;
  readonly ttlMs?: number;
}): CredentialCache {
  const ttlMs = deps.ttlMs ?? CREDENTIAL_CACHE_MS;
  const entries = new Map<string, { value: unknown; until: number }>();
  let seen = changes;
  let nextSweepAt = 0;
  return {
    get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean): MaybePromise<T> {
      if (seen !== changes) {
        entries.clear();
        seen = changes;
      }
      const now = deps.clock.now().getTime();
      if (now >= nextSweepAt) {
        for (const [held, entry] of entries) if (entry.until <= now) entries.delete(held);
        nextSweepAt = now + ttlMs;
      }
      const hit = entries.get(key);
      // Kept under its key by this same get: the value `load` made for that key.
      if (hit && hit.until > now) return hit.value as T;
      if (hit) entries.delete(key);
      // A lookup that started before a change must not keep what it read before it.
      const started = changes;
      return load().then((value) => {
        if (keep(value) && started === changes) {
          if (entries.size >= MAX_ENTRIES) {
            const oldest = entries.keys().next().value;
            if (oldest !== undefined) entries.delete(oldest);
          }
          entries.set(key, { value, until: now + ttlMs });
        }
        return value;
      });
    },
    size: () => entries.size,
  };
}
