import { and, asc, eq, isNull } from 'drizzle-orm';
import {
  digestSecret,
  looksLikeSecret,
  lookupPrefix,
  matchDigest,
  mintSecret,
  ORCHESTRATOR_KEY_PREFIX,
} from '../auth/credentials.ts';
import type { Clock } from '../base/clock.ts';
import { isUuid } from '../base/ids.ts';
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

/** What the operator's listing shows of a key: never the key or its digest. */
interface OrchestratorKeySummary {
  readonly keyId: string;
  /** The key's first characters, as stored to find it. */
  readonly prefix: string;
  readonly createdAt: Date;
  /** A hint, written at most once a minute per server process (auth/usage.ts). */
  readonly lastUsedAt: Date | null;
}

export interface OrchestratorSummary {
  readonly orchestratorId: string;
  readonly name: string;
  /** The account that made itself this orchestrator; null for the operator's. */
  readonly accountId: string | null;
  readonly createdAt: Date;
  /** The keys that work, oldest first. */
  readonly activeKeys: readonly OrchestratorKeySummary[];
}

/** Operator-only: every orchestrator, oldest first, with its unrevoked keys. */
export async function listOrchestrators(db: Database): Promise<OrchestratorSummary[]> {
  const rows = await db
    .select({
      orchestrator: orchestrators,
      key: {
        keyId: orchestratorKeys.id,
        prefix: orchestratorKeys.prefix,
        createdAt: orchestratorKeys.createdAt,
        lastUsedAt: orchestratorKeys.lastUsedAt,
      },
    })
    .from(orchestrators)
    .leftJoin(
      orchestratorKeys,
      and(
        eq(orchestratorKeys.orchestratorId, orchestrators.id),
        isNull(orchestratorKeys.revokedAt),
      ),
    )
    .orderBy(
      asc(orchestrators.createdAt),
      asc(orchestrators.id),
      asc(orchestratorKeys.createdAt),
      asc(orchestratorKeys.id),
    );
  const byId = new Map<string, OrchestratorSummary & { activeKeys: OrchestratorKeySummary[] }>();
  for (const { orchestrator, key } of rows) {
    let summary = byId.get(orchestrator.id);
    if (!summary) {
      summary = {
        orchestratorId: orchestrator.id,
        name: orchestrator.name,
        accountId: orchestrator.accountId,
        createdAt: orchestrator.createdAt,
        activeKeys: [],
      };
      byId.set(orchestrator.id, summary);
    }
    if (key) summary.activeKeys.push(key);
  }
  return [...byId.values()];
}

export interface RotatedOrchestratorKey {
  readonly issued: IssuedOrchestratorKey;
  /** How many keys stopped working. */
  readonly revoked: number;
}

/**
 * Operator-only: a new key for the orchestrator (shown once), and every key it had revoked, in
 * one transaction. Null when there is no such orchestrator. Orchestrator keys are looked up on
 * every request (no credential cache), so the old ones stop working at once.
 */
export async function rotateOrchestratorKey(
  db: Database,
  clock: Clock,
  orchestratorId: string,
): Promise<RotatedOrchestratorKey | null> {
  if (!isUuid(orchestratorId)) return null;
  return db.transaction(async (tx) => {
    // Locked, so two rotations run one after the other: the second revokes the first's key,
    // and exactly one key is left working.
    const [row] = await tx
      .select({ id: orchestrators.id })
      .from(orchestrators)
      .where(eq(orchestrators.id, orchestratorId))
      .for('update');
    if (!row) return null;
    const revoked = await revokeOrchestratorKeys(tx, row.id, clock.now());
    const issued = await issueOrchestratorKey(tx, row.id);
    return { issued, revoked };
  });
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
