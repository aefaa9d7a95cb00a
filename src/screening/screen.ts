import { and, desc, eq, gt } from 'drizzle-orm';
import type { Clock } from '../base/clock.ts';
import type { ScreeningConfig } from '../config/screening.ts';
import type { Database } from '../db/client.ts';
import { type LinkScreening, type ScreeningProviderName, screeningResults } from '../db/schema.ts';
import { hypernativeProvider } from './hypernative.ts';
import { merkleScienceProvider } from './merkle-science.ts';
import { type ScreeningProvider, ScreeningUnavailableError } from './provider.ts';

/**
 * Screens one wallet under a link's providers: the primary first, the backup only when the
 * primary cannot answer. Every answer is stored (`screening_results`, for audit) and reused
 * for `cacheSeconds` for the same wallet and provider, so a page that asks for calldata several
 * times screens once, whichever process serves it.
 */

export interface ScreeningService {
  readonly providers: Readonly<Partial<Record<ScreeningProviderName, ScreeningProvider>>>;
  readonly cacheSeconds: number;
  /** Let a payer through when no provider answers. */
  readonly failOpen: boolean;
}

export function createScreeningService(config: ScreeningConfig): ScreeningService {
  return {
    providers: {
      ...(config.hypernative && {
        hypernative: hypernativeProvider(config.hypernative, config.timeoutMs),
      }),
      ...(config.merklescience && {
        merklescience: merkleScienceProvider(config.merklescience, config.timeoutMs),
      }),
    },
    cacheSeconds: config.cacheSeconds,
    failOpen: config.failOpen,
  };
}

export type ScreeningOutcome =
  | {
      readonly status: 'approved' | 'rejected';
      readonly provider: ScreeningProviderName;
      readonly policyId: string | null;
      readonly reason: string | null;
      /** False when the answer came from the cache (nothing new to report). */
      readonly fresh: boolean;
    }
  | { readonly status: 'unavailable' };

export interface ScreenDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly screening: ScreeningService;
}

export async function screenWallet(
  deps: ScreenDeps,
  query: {
    /** In compared form: EVM lower-cased, Tron as written. */
    readonly wallet: string;
    readonly network: string;
    readonly providers: LinkScreening['providers'];
    readonly securePaymentId: string;
    readonly stage: 'access' | 'completion';
  },
): Promise<ScreeningOutcome> {
  const now = deps.clock.now();
  for (const { provider: name, policyId } of query.providers) {
    const cached = await cachedResult(deps, query.wallet, name, now);
    if (cached) return { ...cached, provider: name, policyId, fresh: false };
    const provider = deps.screening.providers[name];
    if (!provider) continue;
    try {
      const verdict = await provider.screen({
        address: query.wallet,
        network: query.network,
        policyId,
      });
      await deps.db.insert(screeningResults).values({
        wallet: query.wallet,
        provider: name,
        policyId,
        status: verdict.status,
        reason: verdict.reason,
        securePaymentId: query.securePaymentId,
        stage: query.stage,
        createdAt: deps.clock.now(),
      });
      return { ...verdict, provider: name, policyId, fresh: true };
    } catch (error) {
      if (!(error instanceof ScreeningUnavailableError)) throw error;
      // A technical failure: the next provider (the backup), if any.
    }
  }
  return { status: 'unavailable' };
}

async function cachedResult(
  deps: ScreenDeps,
  wallet: string,
  provider: ScreeningProviderName,
  now: Date,
): Promise<{ status: 'approved' | 'rejected'; reason: string | null } | null> {
  if (deps.screening.cacheSeconds === 0) return null;
  const since = new Date(now.getTime() - deps.screening.cacheSeconds * 1000);
  const [row] = await deps.db
    .select({ status: screeningResults.status, reason: screeningResults.reason })
    .from(screeningResults)
    .where(
      and(
        eq(screeningResults.wallet, wallet),
        eq(screeningResults.provider, provider),
        gt(screeningResults.createdAt, since),
      ),
    )
    .orderBy(desc(screeningResults.createdAt))
    .limit(1);
  return row ?? null;
}
