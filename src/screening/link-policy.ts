import { and, eq, sql } from 'drizzle-orm';
import { type FieldError, featureUnavailable, ValidationError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { Database } from '../db/client.ts';
import { groupCommit } from '../db/group-commit.ts';
import { batchStatement, preparedPerDatabase } from '../db/prepared.ts';
import {
  type LinkScreening,
  orchestratorClientLinks,
  type payeeDestinations,
  type ScreeningProviderName,
} from '../db/schema.ts';

/**
 * A link's payer rules (api-facts §2.3, §11.5): the `accessPolicy` of its creation body checked,
 * then resolved once, when the link is made, into what the link stores (`LinkScreening`):
 * the client ID's KYT plan, when its orchestrator link has one, fixes the mode and providers;
 * else the body's policy, unless it says `inherit` (or is absent); else the destination's.
 * A policy naming one provider has no backup. The allowlist is the body's own. Hiding link details is not built (feature_unavailable).
 */

/** The body's `accessPolicy`, as the schema lets it through. */
export interface AccessPolicyInput {
  readonly mode?: 'inherit' | 'off' | 'kyt_all_wallets' | undefined;
  readonly screeningProvider?: ScreeningProviderName | null | undefined;
  readonly hideUntilApproved?: boolean | undefined;
  readonly hidePayeeAddress?: boolean | undefined;
  readonly allowedPayerAddresses?: readonly string[] | undefined;
}

/** What a link asks for, checked: its mode and provider, and its allowlist in compared form. */
export interface RequestedAccess {
  readonly mode: 'inherit' | 'off' | 'kyt_all_wallets';
  readonly screeningProvider: ScreeningProviderName | null;
  readonly allowedPayerAddresses: readonly string[];
}

export const PROVIDER_REQUIRED_MESSAGE = 'is required when mode is kyt_all_wallets';
export const PROVIDER_FORBIDDEN_MESSAGE = 'must be null or omitted unless mode is kyt_all_wallets';

/** The body's policy checked (400 naming each bad field); undefined when none was sent. */
export function checkAccessPolicy(
  input: AccessPolicyInput | undefined,
): RequestedAccess | undefined {
  if (input === undefined) return undefined;
  if (input.hideUntilApproved === true || input.hidePayeeAddress === true) {
    throw featureUnavailable(
      'Hiding link details (accessPolicy.hideUntilApproved, hidePayeeAddress)',
    );
  }
  const mode = input.mode ?? 'inherit';
  const screeningProvider = input.screeningProvider ?? null;
  const errors: FieldError[] = [];
  if (mode === 'kyt_all_wallets' && screeningProvider === null) {
    errors.push({ field: 'accessPolicy.screeningProvider', message: PROVIDER_REQUIRED_MESSAGE });
  }
  if (mode !== 'kyt_all_wallets' && screeningProvider !== null) {
    errors.push({ field: 'accessPolicy.screeningProvider', message: PROVIDER_FORBIDDEN_MESSAGE });
  }
  const allowed = new Set<string>();
  (input.allowedPayerAddresses ?? []).forEach((address, index) => {
    const parsed = parseAddress(address.trim());
    if (parsed.ok) allowed.add(addressKey(parsed));
    else
      errors.push({
        field: `accessPolicy.allowedPayerAddresses[${index}]`,
        message: parsed.message,
      });
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return { mode, screeningProvider, allowedPayerAddresses: [...allowed] };
}

/**
 * What the new link stores: null when anyone may pay unscreened. `clientIdId` is the caller's
 * client ID (its orchestrator link's plan first), `destinationId` the canonical id of the
 * destination its first request pays.
 */
export async function resolveLinkScreening(
  db: Database,
  link: {
    readonly accountId: string;
    readonly clientIdId: string | null;
    readonly destinationId: string | null;
    readonly requested: RequestedAccess | undefined;
  },
): Promise<LinkScreening | null> {
  const allowedPayerAddresses = link.requested?.allowedPayerAddresses ?? [];
  const plan = link.clientIdId === null ? null : await kytPlanOf(db, link.clientIdId);
  let screening: Omit<LinkScreening, 'allowedPayerAddresses'>;
  if (plan !== null && plan.length > 0) {
    screening = { mode: 'kyt_all_wallets', providers: plan, source: 'plan' };
  } else if (link.requested !== undefined && link.requested.mode !== 'inherit') {
    const provider = link.requested.screeningProvider;
    screening =
      link.requested.mode === 'kyt_all_wallets' && provider !== null
        ? {
            mode: 'kyt_all_wallets',
            providers: [{ provider, policyId: null }],
            source: 'payment',
          }
        : { mode: 'off', providers: [], source: 'payment' };
  } else {
    const provider = await destinationProvider(db, link.accountId, link.destinationId);
    screening =
      provider === null
        ? { mode: 'off', providers: [], source: 'none' }
        : {
            mode: 'kyt_all_wallets',
            providers: [{ provider, policyId: null }],
            source: 'destination',
          };
  }
  if (screening.mode === 'off' && allowedPayerAddresses.length === 0) return null;
  return { ...screening, allowedPayerAddresses };
}

async function kytPlanOf(
  db: Database,
  clientIdId: string,
): Promise<LinkScreening['providers'] | null> {
  const [row] = await db
    .select({ plan: orchestratorClientLinks.kytPlan })
    .from(orchestratorClientLinks)
    .where(
      and(
        eq(orchestratorClientLinks.clientIdId, clientIdId),
        eq(orchestratorClientLinks.status, 'active'),
      ),
    );
  if (!row?.plan) return null;
  return [...row.plan.providers]
    .sort((a, b) => a.priority - b.priority)
    .map(({ provider, policyId }) => ({ provider, policyId }));
}

/** The screening provider of the destination's `kyt_all_wallets` policy; null when it screens none. */
async function destinationProvider(
  db: Database,
  accountId: string,
  destinationId: string | null,
): Promise<ScreeningProviderName | null> {
  if (destinationId === null) return null;
  const policy = await policyReader(db).write({ accountId, destinationId });
  return policy?.mode === 'kyt_all_wallets' ? policy.screeningProvider : null;
}

interface PolicyKey {
  readonly accountId: string;
  readonly destinationId: string;
}

type Policy = (typeof payeeDestinations.$inferSelect)['accessPolicy'];

const policyStatement = batchStatement<{
  account_id: string;
  destination_id: string;
  policy: Policy | null;
}>(
  sql`select d.account_id, d.destination_id, d.access_policy as policy
      from payee_destinations d
      join jsonb_to_recordset(${sql.placeholder('keys')}::jsonb)
        as k("accountId" uuid, "destinationId" text)
        on d.account_id = k."accountId" and d.destination_id = k."destinationId"`,
);

/**
 * The destinations' policies that concurrent link creations look up, read in one SELECT (the
 * group writer of db/group-commit.ts, reading): every link made reads one, and a statement a
 * link was the largest share of Postgres's work on the creation bench after links themselves
 * were written in groups. Its counts are what tests observe.
 */
export const policyReader = preparedPerDatabase((db) => {
  const readGroup = async (keys: readonly PolicyKey[]): Promise<(Policy | null)[]> => {
    const rows = await policyStatement(db, { keys: JSON.stringify(keys) });
    const found = new Map(
      rows.map((row) => [`${row.account_id} ${row.destination_id}`, row.policy]),
    );
    return keys.map((key) => found.get(`${key.accountId} ${key.destinationId}`) ?? null);
  };
  return groupCommit<PolicyKey, Policy | null>({
    writeGroup: readGroup,
    writeOne: async (key) => (await readGroup([key]))[0] ?? null,
  });
});
