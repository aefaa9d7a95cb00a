import { and, eq, inArray } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Database } from '../db/client.ts';
import { orchestratorClientLinks, orchestrators } from '../db/schema.ts';

/**
 * Who takes a fee on a client ID's links: the orchestrator it is actively linked to, as the
 * account's own client-ID reads show it (`orchestrator` on `GET /v1|v2/client-ids` and
 * `GET /v1|v2/client-ids/{id}`; the reference's item schemas allow fields beside theirs). Read
 * here from the link table, not through `orchestrators/`, which sits beside `auth/` and
 * imports it.
 */

export interface LinkedOrchestrator {
  readonly id: string;
  readonly name: string;
  readonly linkedAt: string;
}

export const LinkedOrchestratorSchema = Type.Unsafe<LinkedOrchestrator | null>({
  type: ['object', 'null'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    linkedAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'name', 'linkedAt'],
  additionalProperties: false,
  description:
    'The orchestrator (platform) linked to this client ID: it may create links for it with its key and take its fees on them. Null: none. DELETE …/{id}/orchestrator unlinks it, for good.',
});

/** The active orchestrator of each client ID (row ids) that has one. */
export async function linkedOrchestrators(
  db: Database,
  clientIdIds: readonly string[],
): Promise<Map<string, LinkedOrchestrator>> {
  if (clientIdIds.length === 0) return new Map();
  const rows = await db
    .select({
      clientIdId: orchestratorClientLinks.clientIdId,
      id: orchestrators.id,
      name: orchestrators.name,
      linkedAt: orchestratorClientLinks.createdAt,
    })
    .from(orchestratorClientLinks)
    .innerJoin(orchestrators, eq(orchestrators.id, orchestratorClientLinks.orchestratorId))
    .where(
      and(
        inArray(orchestratorClientLinks.clientIdId, [...clientIdIds]),
        eq(orchestratorClientLinks.status, 'active'),
      ),
    );
  return new Map(
    rows.map((row) => [
      row.clientIdId,
      { id: row.id, name: row.name, linkedAt: row.linkedAt.toISOString() },
    ]),
  );
}
