import type { ScreeningProviderConfig } from '../config/screening.ts';
import type { ScreeningProviderName } from '../db/schema.ts';

/**
 * A screening provider: tells whether a wallet may pay. Its answer is `approved` or `rejected`
 * (with the provider's plain reason); a provider that cannot answer (an HTTP error, a timeout,
 * an answer it does not understand) throws `ScreeningUnavailableError`, and the caller turns to
 * the backup provider or the policy.
 */

interface ScreeningVerdict {
  readonly status: 'approved' | 'rejected';
  /** The provider's words for a rejection; null when approved. */
  readonly reason: string | null;
}

interface ScreeningQuery {
  /** As the payer gave it (an EVM address in any case, or a Tron one). */
  readonly address: string;
  /** payreq's network id of the link (`base`, `tron`, `sandbox`…). */
  readonly network: string;
  /** The provider-side policy to screen under, when the plan names one. */
  readonly policyId: string | null;
}

export interface ScreeningProvider {
  readonly name: ScreeningProviderName;
  screen(query: ScreeningQuery): Promise<ScreeningVerdict>;
}

export class ScreeningUnavailableError extends Error {
  constructor(provider: ScreeningProviderName, cause: string) {
    super(`${provider} screening unavailable: ${cause}`);
    this.name = 'ScreeningUnavailableError';
  }
}

/** One JSON call to a provider within the timeout; its parsed body, or a ScreeningUnavailableError. */
export async function callProvider(
  name: ScreeningProviderName,
  config: ScreeningProviderConfig,
  timeoutMs: number,
  request: { path: string; headers: Record<string, string>; body: unknown },
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${config.url}${request.path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...request.headers,
      },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new ScreeningUnavailableError(name, timedOut ? 'timed out' : 'unreachable');
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new ScreeningUnavailableError(name, `answered ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new ScreeningUnavailableError(name, 'answered something other than JSON');
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
