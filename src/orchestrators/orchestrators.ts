import { and, eq, isNull } from 'drizzle-orm';
import {
  digestSecret,
  looksLikeSecret,
  lookupPrefix,
  matchDigest,
  mintSecret,
  ORCHESTRATOR_KEY_PREFIX,
} from '../auth/credentials.ts';
import type { Database } from '../db/client.ts';
import { orchestratorClientLinks, orchestratorKeys, orchestrators } from '../db/schema.ts';

export interface CreatedOrchestrator {
  readonly orchestratorId: string;
  readonly orchestratorKey: string;
}

export type OrchestratorKeyCheck =
  | { readonly status: 'valid'; readonly keyId: string; readonly orchestratorId: string }
  | { readonly status: 'unknown' }
  | { readonly status: 'revoked' };

/** Operator-only: a new orchestrator and its first key (shown once). */
export async function createOrchestrator(db: Database, name: string): Promise<CreatedOrchestrator> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(orchestrators)
      .values({ name })
      .returning({ id: orchestrators.id });
    if (!row) throw new Error('orchestrator insert returned no row');
    const { key } = await issueOrchestratorKey(tx, row.id);
    return { orchestratorId: row.id, orchestratorKey: key };
  });
}

export interface IssuedOrchestratorKey {
  /** The key itself: shown once, only its digest is kept. */
  readonly key: string;
  readonly id: string;
  /** What is stored to find it: the key's first characters. */
  readonly prefix: string;
  readonly createdAt: Date;
}

export async function issueOrchestratorKey(
  db: Database,
  orchestratorId: string,
): Promise<IssuedOrchestratorKey> {
  const key = mintSecret(ORCHESTRATOR_KEY_PREFIX);
  const [row] = await db
    .insert(orchestratorKeys)
    .values({
      orchestratorId,
      prefix: lookupPrefix(key, ORCHESTRATOR_KEY_PREFIX),
      keyHash: digestSecret(key),
    })
    .returning({
      id: orchestratorKeys.id,
      prefix: orchestratorKeys.prefix,
      createdAt: orchestratorKeys.createdAt,
    });
  if (!row) throw new Error('orchestrator key insert returned no row');
  return { key, ...row };
}

export async function checkOrchestratorKey(
  db: Database,
  presented: string,
): Promise<OrchestratorKeyCheck> {
  if (!looksLikeSecret(presented, ORCHESTRATOR_KEY_PREFIX)) return { status: 'unknown' };
  const candidates = await db
    .select()
    .from(orchestratorKeys)
    .where(eq(orchestratorKeys.prefix, lookupPrefix(presented, ORCHESTRATOR_KEY_PREFIX)));
  const match = matchDigest(candidates, presented);
  if (!match) return { status: 'unknown' };
  if (match.revokedAt !== null) return { status: 'revoked' };
  return { status: 'valid', keyId: match.id, orchestratorId: match.orchestratorId };
}

export async function revokeOrchestratorKeys(
  db: Database,
  orchestratorId: string,
  at: Date,
): Promise<number> {
  const rows = await db
    .update(orchestratorKeys)
    .set({ revokedAt: at })
    .where(
      and(eq(orchestratorKeys.orchestratorId, orchestratorId), isNull(orchestratorKeys.revokedAt)),
    )
    .returning({ id: orchestratorKeys.id });
  return rows.length;
}

/** Is the client ID (row id) actively linked to this orchestrator? */
export async function isLinked(
  db: Database,
  orchestratorId: string,
  clientIdId: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: orchestratorClientLinks.id })
    .from(orchestratorClientLinks)
    .where(
      and(
        eq(orchestratorClientLinks.orchestratorId, orchestratorId),
        eq(orchestratorClientLinks.clientIdId, clientIdId),
        eq(orchestratorClientLinks.status, 'active'),
      ),
    );
  return row !== undefined;
}

/** The orchestrator the client ID (row id) is actively linked to, if any. */
export async function orchestratorOfClientId(
  db: Database,
  clientIdId: string,
): Promise<string | null> {
  const [row] = await db
    .select({ orchestratorId: orchestratorClientLinks.orchestratorId })
    .from(orchestratorClientLinks)
    .where(
      and(
        eq(orchestratorClientLinks.clientIdId, clientIdId),
        eq(orchestratorClientLinks.status, 'active'),
      ),
    );
  return row?.orchestratorId ?? null;
}
