import type { Clock } from '../base/clock.ts';
import { AppError } from '../base/errors.ts';
import type { KeyRing } from '../base/key-ring.ts';
import type { Database } from '../db/client.ts';
import { type ComplianceProvider, ProviderFailure } from './provider.ts';

/** What the payer routes use. */
export interface PayerDeps {
  readonly db: Database;
  readonly clock: Clock;
  /** Seals and opens personal data (src/base/key-ring.ts). */
  readonly keys: KeyRing;
  /** The compliance provider; null when none is configured. */
  readonly provider: ComplianceProvider | null;
  /** The HMAC key of the provider's callbacks; null refuses every callback. */
  readonly webhookSecret: string | null;
  /** Tells the dispatcher deliveries were queued. */
  readonly wake?: (() => void) | undefined;
}

export function providerOf(deps: PayerDeps): ComplianceProvider {
  if (deps.provider === null) {
    throw new AppError(
      'compliance_provider_missing',
      'No compliance provider is configured (COMPLIANCE_URL)',
    );
  }
  return deps.provider;
}

/**
 * A provider failure as the caller sees it, logged with its cause: the operation and the HTTP
 * status (provider.ts's messages), never what was sent.
 */
export function providerFailed(
  error: unknown,
  log: { warn(fields: object, message: string): void },
): AppError {
  const reason = error instanceof ProviderFailure ? error.message : 'provider error';
  log.warn({ reason }, 'compliance provider call failed');
  return new AppError(
    'compliance_provider_failed',
    'The compliance provider could not be reached; try again',
    { cause: reason },
  );
}
