import { AppError, ValidationError } from '../base/errors.ts';
import type { Database } from '../db/client.ts';
import { orchestrators } from '../db/schema.ts';
import { issueOrchestratorKey } from './orchestrators.ts';

/**
 * `POST /v2/orchestrators`: a signed-in user makes their account a platform (an orchestrator)
 * and gets its key, once. One per account: the orchestrator is the platform itself (its client
 * IDs, webhooks, fees and branding hang off it), and a second one would split them; the key is
 * shown once and, as the reference says, rotated by the operator, not by creating another.
 */

export const ORCHESTRATOR_EXISTS_MESSAGE =
  'This account already has an orchestrator; its key was shown when it was created';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface AccountOrchestratorInput {
  readonly accountId: string;
  readonly name: string;
  readonly supportEmail: string | null;
}

/** The 201 answer of 0.31.0's example: the orchestrator, its key's record, and the key. */
export interface CreatedAccountOrchestrator {
  readonly orchestrator: {
    readonly id: string;
    readonly name: string;
    readonly supportEmail: string | null;
    readonly status: 'active';
    readonly createdAt: string;
    readonly updatedAt: string;
  };
  readonly key: {
    readonly id: string;
    readonly orchestratorId: string;
    readonly keyPrefix: string;
    readonly status: 'active';
    readonly createdAt: string;
    readonly updatedAt: string;
  };
  readonly rawKey: string;
}

export async function createAccountOrchestrator(
  db: Database,
  input: AccountOrchestratorInput,
): Promise<CreatedAccountOrchestrator> {
  const name = input.name.trim();
  const supportEmail = input.supportEmail?.trim() ?? null;
  const errors = [
    ...(name === '' ? [{ field: 'orchestratorName', message: 'must not be blank' }] : []),
    ...(supportEmail !== null && !EMAIL.test(supportEmail)
      ? [{ field: 'orchestratorContactEmail', message: 'must be an e-mail address' }]
      : []),
  ];
  if (errors.length > 0) throw new ValidationError(errors);
  return db.transaction(async (tx) => {
    // The partial unique index on account_id makes a second one, even a concurrent one, insert
    // nothing; the transaction then rolls back with nothing written.
    const [row] = await tx
      .insert(orchestrators)
      .values({ name, accountId: input.accountId, supportEmail })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError('orchestrator_exists', ORCHESTRATOR_EXISTS_MESSAGE);
    const issued = await issueOrchestratorKey(tx, row.id);
    const created = row.createdAt.toISOString();
    const keyCreated = issued.createdAt.toISOString();
    return {
      orchestrator: {
        id: row.id,
        name: row.name,
        supportEmail: row.supportEmail,
        status: 'active',
        createdAt: created,
        updatedAt: created,
      },
      key: {
        id: issued.id,
        orchestratorId: row.id,
        keyPrefix: issued.prefix,
        status: 'active',
        createdAt: keyCreated,
        updatedAt: keyCreated,
      },
      rawKey: issued.key,
    };
  });
}
