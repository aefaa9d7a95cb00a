import type { ScreeningProviderConfig } from '../config/screening.ts';
import { providerChain } from './chains.ts';
import {
  callProvider,
  isRecord,
  type ScreeningProvider,
  ScreeningUnavailableError,
} from './provider.ts';

/**
 * Merkle Science's address screening, in the shape of its public Compass API: the address as
 * `identifier` and its `blockchain` posted with `X-API-KEY`; the answer's `risk_level` goes from
 * 0 (no risk) to 5 (critical), with `risk_level_verbose` and the tags that explain it. A wallet
 * at `High` (4) or above is rejected.
 */

export const MERKLE_SCIENCE_SCREEN_PATH = '/api/v4/addresses/';
/** The lowest `risk_level` refused. */
const REJECTED_FROM_RISK_LEVEL = 4;

export function merkleScienceProvider(
  config: ScreeningProviderConfig,
  timeoutMs: number,
): ScreeningProvider {
  return {
    name: 'merklescience',
    async screen(query) {
      const body = await callProvider('merklescience', config, timeoutMs, {
        path: MERKLE_SCIENCE_SCREEN_PATH,
        headers: config.apiKey ? { 'X-API-KEY': config.apiKey.reveal() } : {},
        body: {
          identifier: query.address,
          blockchain: providerChain('merklescience', query.network),
          ...(query.policyId !== null && { policy_id: query.policyId }),
        },
      });
      const level = isRecord(body) ? body.risk_level : undefined;
      if (typeof level !== 'number' || !Number.isInteger(level) || level < 0 || level > 5) {
        throw new ScreeningUnavailableError('merklescience', 'answered without a risk level');
      }
      if (level < REJECTED_FROM_RISK_LEVEL) return { status: 'approved', reason: null };
      const verbose = isRecord(body) ? body.risk_level_verbose : undefined;
      const tags = isRecord(body) && Array.isArray(body.tags) ? body.tags : [];
      const words = tags.filter((t): t is string => typeof t === 'string');
      const label = typeof verbose === 'string' ? `${verbose} risk` : `Risk level ${level}`;
      return {
        status: 'rejected',
        reason: words.length > 0 ? `${label}: ${words.join(', ')}` : label,
      };
    },
  };
}
