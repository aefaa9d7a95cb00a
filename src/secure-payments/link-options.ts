import type { Static } from 'typebox';
import { featureUnavailable } from '../base/errors.ts';
import type { AccessPolicy } from './schemas.ts';

/**
 * The options a link's creation body may carry beside what the link is for: the reference's
 * fee fields (ignored: fees come from the server) and its access policy.
 */

/** Only a policy that changes nothing is accepted until screening and payer rules exist. */
export function checkAccessPolicy(policy: Static<typeof AccessPolicy> | undefined): void {
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
