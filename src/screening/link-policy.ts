import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type FieldError, featureUnavailable, ValidationError } from '../base/errors.ts';
import { addressKey, parseAddress } from '../chains/address.ts';
import type { Database } from '../db/client.ts';
import {
  type LinkScreening,
  orchestratorClientLinks,
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
    readonly clientIdId: string | null;
    readonly destinationId: string | null;
    readonly requested: RequestedAccess | undefined;
  },
): Promise<ResolvedScreening> {
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
    // The destination's policy decides, read by the statement that writes the link
    // (`inheritedScreening`): this is what the link stores when it screens nobody.
    const screening: LinkScreening | null =
      allowedPayerAddresses.length === 0
        ? null
        : { mode: 'off', providers: [], source: 'none', allowedPayerAddresses };
    return { screening, fromDestination: link.destinationId !== null };
  }
  if (screening.mode === 'off' && allowedPayerAddresses.length === 0) {
    return { screening: null, fromDestination: false };
  }
  return { screening: { ...screening, allowedPayerAddresses }, fromDestination: false };
}

/**
 * What a new link stores, and whether its destination's policy may replace it: a link that
 * neither a plan nor its own policy screens takes its destination's `kyt_all_wallets`, read in
 * the statement that writes the link, so that a policy changed a moment before is the one kept.
 */
export interface ResolvedScreening {
  readonly screening: LinkScreening | null;
  readonly fromDestination: boolean;
}

/**
 * The screening a link inheriting its destination's policy stores, as SQL over that
 * destination's `access_policy` (`policy`) and what the link stores otherwise (`fallback`,
 * `ResolvedScreening.screening`): the destination's provider for every wallet, the link's own
 * allowlist kept; else `fallback`.
 */
export function inheritedScreening(policy: SQL, fallback: SQL): SQL {
  return sql`case when ${policy}->>'mode' = 'kyt_all_wallets'
      and ${policy}->>'screeningProvider' is not null
    then jsonb_build_object(
      'mode', 'kyt_all_wallets',
      'providers', jsonb_build_array(jsonb_build_object(
        'provider', ${policy}->>'screeningProvider', 'policyId', null)),
      'source', 'destination',
      'allowedPayerAddresses', coalesce(${fallback}->'allowedPayerAddresses', '[]'::jsonb))
    else ${fallback} end`;
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
