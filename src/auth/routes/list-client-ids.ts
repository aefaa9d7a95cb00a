import { Type } from 'typebox';
import type { Database } from '../../db/client.ts';
import { accountIdOf } from '../../http/principal.ts';
import type { App } from '../../http/types.ts';
import { LinkedOrchestratorSchema, linkedOrchestrators } from '../client-id-orchestrator.ts';
import {
  boundTo,
  type ClientIdSurface,
  Created,
  feePercentageOf,
  iso,
  ListItem,
} from '../client-id-schemas.ts';
import { listClientIds } from '../client-ids.ts';

export function registerListClientIds(
  app: App,
  deps: { db: Database; surface: ClientIdSurface },
): void {
  const { surface } = deps;
  app.get(
    surface.prefix,
    {
      config: { auth: surface.auth },
      schema: {
        tags: surface.tags,
        summary: 'The account’s client IDs, revoked ones included',
        response: {
          200: Type.Array(
            Type.Object({
              ...ListItem,
              // Ours: the fee a list shows (the dashboard's), without a read per client ID.
              feePercentage: Created.feePercentage,
              feeAddress: Created.feeAddress,
              ...boundTo(surface),
              orchestrator: LinkedOrchestratorSchema,
            }),
          ),
        },
      },
    },
    async (request) => {
      const records = await listClientIds(deps.db, accountIdOf(request));
      const linked = await linkedOrchestrators(
        deps.db,
        records.map(({ row }) => row.id),
      );
      return records.map(({ row, payeeDestinationId }) => ({
        id: row.id,
        clientId: row.clientId,
        label: row.label,
        allowedDomains: row.allowedDomains,
        status: row.status,
        createdAt: row.createdAt.toISOString(),
        lastUsedAt: iso(row.lastUsedAt),
        feePercentage: feePercentageOf(row),
        feeAddress: row.feeAddress,
        ...(surface.binding && { payeeDestinationId }),
        orchestrator: linked.get(row.id) ?? null,
      }));
    },
  );
}
