import { eq } from 'drizzle-orm';
import { isUuid } from '../base/ids.ts';
import type { Database } from '../db/client.ts';
import { feeConfigs } from '../db/schema.ts';
import { feeConfigNotFound } from './fee-configs.ts';

/**
 * The orchestrator a fee config belongs to, for the operator, who acts for any orchestrator
 * (the CLI) and then goes through that orchestrator's own functions. No such config: the 404
 * the routes answer.
 */
export async function feeConfigOwner(db: Database, id: string): Promise<string> {
  const [row] = isUuid(id)
    ? await db
        .select({ orchestratorId: feeConfigs.orchestratorId })
        .from(feeConfigs)
        .where(eq(feeConfigs.id, id))
    : [];
  if (!row) throw feeConfigNotFound();
  return row.orchestratorId;
}
