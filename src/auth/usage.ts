import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import type { Database } from '../db/client.ts';
import { apiKeys, clientIds, orchestratorKeys } from '../db/schema.ts';

/** `lastUsedAt` is a hint for humans: this process writes it at most once per credential per window. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Bound on remembered credentials; past it the oldest entries are forgotten (costing one extra write). */
const MAX_TRACKED = 10_000;

const TABLES = { apiKey: apiKeys, clientId: clientIds, orchestratorKey: orchestratorKeys } as const;
type UsageKind = keyof typeof TABLES;

export interface UsageRecorder {
  /** Records that a credential was used now; never throws and never delays the request. */
  touch(kind: UsageKind, id: string): void;
  /** Resolves when every write started so far has finished. */
  flush(): Promise<void>;
}

export function createUsageRecorder(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
}): UsageRecorder {
  const lastWritten = new Map<string, number>();
  const pending = new Set<Promise<void>>();

  return {
    touch(kind, id) {
      const key = `${kind}:${id}`;
      const now = deps.clock.now();
      const previous = lastWritten.get(key);
      if (previous !== undefined && now.getTime() - previous < LAST_USED_RESOLUTION_MS) return;
      lastWritten.delete(key);
      lastWritten.set(key, now.getTime());
      if (lastWritten.size > MAX_TRACKED) {
        const oldest = lastWritten.keys().next().value;
        if (oldest !== undefined) lastWritten.delete(oldest);
      }
      const table = TABLES[kind];
      const write = deps.db
        .update(table)
        .set({ lastUsedAt: now })
        .where(eq(table.id, id))
        .then(
          () => undefined,
          (error: unknown) =>
            deps.logger.warn({ err: error, kind }, 'could not record credential use'),
        )
        .finally(() => pending.delete(write));
      pending.add(write);
    },
    async flush() {
      await Promise.all([...pending]);
    },
  };
}
