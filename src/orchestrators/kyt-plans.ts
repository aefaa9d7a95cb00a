import { and, eq } from 'drizzle-orm';
import { type Static, Type } from 'typebox';
import { accountClientId } from '../auth/client-ids.ts';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import { isUuid } from '../base/ids.ts';
import type { Database } from '../db/client.ts';
import { orchestratorClientLinks, type StoredKytPlan } from '../db/schema.ts';

/**
 * KYT plans (api-facts §11.5): which screening providers check the payers of a client ID's
 * links, the first primary and the second a backup for technical failures only. Stored and
 * shown here; screening itself is the compliance work's.
 */

const Provider = Type.Union([Type.Literal('hypernative'), Type.Literal('merklescience')]);

/** What a caller sends: 1 or 2 providers, each with an optional policy id; no `priority`. */
export const KytPlanBody = Type.Object(
  {
    providers: Type.Array(
      Type.Object(
        {
          provider: Provider,
          policyId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 2 },
    ),
  },
  { additionalProperties: false },
);

/** What we show: each provider with its `policyId` (null when none) and its `priority` (1, 2). */
export const KytPlanSchema = Type.Object(
  {
    providers: Type.Array(
      Type.Object({
        provider: Provider,
        policyId: Type.Union([Type.String(), Type.Null()]),
        priority: Type.Integer(),
      }),
    ),
  },
  { additionalProperties: false },
);

export type KytPlanInput = Static<typeof KytPlanBody>;

/**
 * The plan in stored form, and the errors naming each bad entry (`providers[i]…` under `prefix`: `kyt.`
 * in an intent's body, nothing in the PUT's).
 */
export function checkKytPlan(
  input: KytPlanInput,
  prefix: string,
): { plan: StoredKytPlan; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  input.providers.forEach((entry, index) => {
    const at = `${prefix}providers[${index}]`;
    if (seen.has(entry.provider)) {
      errors.push({
        field: `${at}.provider`,
        message: 'is listed twice; providers must be unique',
      });
    }
    seen.add(entry.provider);
    if (entry.policyId !== undefined && !isUuid(entry.policyId)) {
      errors.push({ field: `${at}.policyId`, message: 'must be a UUID' });
    }
  });
  const providers = input.providers.map((entry, index) => ({
    provider: entry.provider,
    policyId: entry.policyId?.toLowerCase() ?? null,
    priority: index + 1,
  }));
  return { plan: { providers }, errors };
}

/**
 * The merchant replaces the KYT plan of one of its client IDs (row id) linked to an
 * orchestrator (`PUT /v1/client-id-links/{clientIdId}/kyt`). Another account's client ID is as
 * unknown as a missing one; one with no active link has no plan to hold.
 */
export async function updateKytPlan(
  db: Database,
  accountId: string,
  clientIdRowId: string,
  input: KytPlanInput,
): Promise<{ clientIdId: string; orchestratorId: string; kyt: StoredKytPlan }> {
  const { plan, errors } = checkKytPlan(input, '');
  if (errors.length > 0) throw new ValidationError(errors);
  const { row } = await accountClientId(db, accountId, clientIdRowId);
  const [link] = await db
    .update(orchestratorClientLinks)
    .set({ kytPlan: plan })
    .where(
      and(
        eq(orchestratorClientLinks.clientIdId, row.id),
        eq(orchestratorClientLinks.status, 'active'),
      ),
    )
    .returning({ orchestratorId: orchestratorClientLinks.orchestratorId });
  if (!link) {
    throw new AppError('orchestrator_not_linked', 'Client ID is not linked to an orchestrator');
  }
  return { clientIdId: row.id, orchestratorId: link.orchestratorId, kyt: plan };
}
