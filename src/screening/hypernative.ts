import type { ScreeningProviderConfig } from '../config/screening.ts';
import { providerChain } from './chains.ts';
import {
  callProvider,
  isRecord,
  type ScreeningProvider,
  ScreeningUnavailableError,
} from './provider.ts';

/**
 * Hypernative's address screening, in the shape of its public screener API: one address and
 * chain (and the customer's policy, when the plan names one) posted with the API key; the
 * answer's `data.recommendation` is `Approve` or `Deny`, with the reasons that led to it.
 */

export const HYPERNATIVE_SCREEN_PATH = '/screener/v1/address';

export function hypernativeProvider(
  config: ScreeningProviderConfig,
  timeoutMs: number,
): ScreeningProvider {
  return {
    name: 'hypernative',
    async screen(query) {
      const body = await callProvider('hypernative', config, timeoutMs, {
        path: HYPERNATIVE_SCREEN_PATH,
        headers: config.apiKey ? { 'x-api-key': config.apiKey.reveal() } : {},
        body: {
          address: query.address,
          chain: providerChain('hypernative', query.network),
          ...(query.policyId !== null && { policyId: query.policyId }),
        },
      });
      const data = isRecord(body) ? body.data : undefined;
      const recommendation = isRecord(data) ? data.recommendation : undefined;
      if (recommendation === 'Approve') return { status: 'approved', reason: null };
      if (recommendation === 'Deny') {
        const reasons = isRecord(data) && Array.isArray(data.reasons) ? data.reasons : [];
        const words = reasons.filter((r): r is string => typeof r === 'string');
        return { status: 'rejected', reason: words.join('; ') || 'Denied by policy' };
      }
      throw new ScreeningUnavailableError('hypernative', 'answered without a recommendation');
    },
  };
}
