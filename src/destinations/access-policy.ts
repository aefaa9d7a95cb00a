import { ValidationError } from '../base/errors.ts';
import type { payeeDestinations } from '../db/schema.ts';

/** Who may pay a destination and what the pay page hides (api-facts §2.3). */
export type AccessPolicy = (typeof payeeDestinations.$inferSelect)['accessPolicy'];

/** Whether `next` screens and hides at least what `previous` did (the provider may differ). */
export function guardsAsWell(next: AccessPolicy, previous: AccessPolicy): boolean {
  return (
    (previous.mode === 'off' || next.mode === 'kyt_all_wallets') &&
    (!previous.hideUntilApproved || next.hideUntilApproved) &&
    (!previous.hidePayeeAddress || next.hidePayeeAddress)
  );
}

/** What a destination gets when no policy is given: anyone may pay, nothing hidden. */
const DEFAULT_ACCESS_POLICY: AccessPolicy = {
  mode: 'off',
  screeningProvider: null,
  hideUntilApproved: false,
  hidePayeeAddress: false,
};

/**
 * A caller's access policy completed with defaults. There is no default screening provider:
 * `kyt_all_wallets` must name one, and `off` must not, so a stored policy never carries a
 * provider that does nothing.
 */
export function accessPolicyFrom(input: Partial<AccessPolicy>): AccessPolicy {
  const mode = input.mode ?? DEFAULT_ACCESS_POLICY.mode;
  const screeningProvider = input.screeningProvider ?? null;
  if (mode === 'kyt_all_wallets' && screeningProvider === null) {
    throw new ValidationError([
      {
        field: 'accessPolicy.screeningProvider',
        message: 'is required when mode is kyt_all_wallets',
      },
    ]);
  }
  if (mode === 'off' && screeningProvider !== null) {
    throw new ValidationError([
      {
        field: 'accessPolicy.screeningProvider',
        message: 'must be null or omitted when mode is off',
      },
    ]);
  }
  return {
    mode,
    screeningProvider,
    hideUntilApproved: input.hideUntilApproved ?? false,
    hidePayeeAddress: input.hidePayeeAddress ?? false,
  };
}
