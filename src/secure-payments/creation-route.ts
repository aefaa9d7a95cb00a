import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { featureUnavailable } from '../base/errors.ts';
import type { FeePlan } from '../base/fee-plan.ts';
import { type CreatedLink, type LinkCaller, linkCallerOf } from './link-caller.ts';
import type { AccessPolicy } from './schemas.ts';

/**
 * What every route that creates a link (a link, a payout link, a batch payout link) does around
 * the creation: the caller read from the request's principal, the options a creation body may
 * carry beside what the link is for checked and set aside, and the 201 body with the link's
 * fee plan, or null (fees come from the server, never from the body).
 */

/**
 * The options of a creation body (`LINK_OPTION_FIELDS`): the reference's fee fields, ignored,
 * and its access policy.
 */
interface LinkOptions {
  readonly feePercentage?: string | undefined;
  readonly feeAddress?: string | undefined;
  readonly accessPolicy?: Static<typeof AccessPolicy> | undefined;
}

/** What the body asks of the link, once its options are checked and set aside. */
export function linkInputOf<Body extends LinkOptions>(body: Body): Omit<Body, keyof LinkOptions> {
  const { feePercentage: _ignored, feeAddress: _alsoIgnored, accessPolicy, ...input } = body;
  checkAccessPolicy(accessPolicy);
  return input;
}

/** The link `create` makes for the request's caller, as the 201 answers it. */
export async function createLinkFor(
  request: FastifyRequest,
  create: (caller: LinkCaller) => Promise<CreatedLink>,
): Promise<CreatedLink & { readonly feePlan: FeePlan | null }> {
  const created = await create(linkCallerOf(request));
  return { ...created, feePlan: created.feePlan ?? null };
}

/** Only a policy that changes nothing is accepted until screening and payer rules exist. */
function checkAccessPolicy(policy: Static<typeof AccessPolicy> | undefined): void {
  if (policy === undefined) return;
  if (policy.mode === 'kyt_all_wallets' || (policy.screeningProvider ?? null) !== null)
    throw featureUnavailable('KYT screening of payers (accessPolicy.mode, screeningProvider)');
  if (policy.hideUntilApproved === true || policy.hidePayeeAddress === true)
    throw featureUnavailable(
      'Hiding link details (accessPolicy.hideUntilApproved, hidePayeeAddress)',
    );
  if ((policy.allowedPayerAddresses ?? []).length > 0)
    throw featureUnavailable('Payer allowlists (accessPolicy.allowedPayerAddresses)');
}
