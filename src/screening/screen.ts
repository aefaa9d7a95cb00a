import { and, desc, eq, gt, gte, isNull } from 'drizzle-orm';
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
 * on access for `cacheSeconds` for the same wallet, provider, policy and network, so a page
 * that asks for calldata several times screens once, whichever process serves it. The
 * completion screen always asks afresh.
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
      /** False when this link already had this answer (nothing new to report to it). */
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
    /** `completion` always asks a provider afresh: the cache is for a page's repeated calls. */
    readonly stage: 'access' | 'completion';
  },
): Promise<ScreeningOutcome> {
  const now = deps.clock.now();
  for (const { provider: name, policyId } of query.providers) {
    const key = { wallet: query.wallet, provider: name, policyId, network: query.network };
    const cached = query.stage === 'access' ? await cachedResult(deps, key, now) : null;
    if (cached) {
      // Another link's answer: recorded for this link too (with the answer's own time, so the
      // cache does not last longer), and reported once to this link's orchestrator.
      const known = cached.securePaymentId === query.securePaymentId;
      if (!known && !(await answeredFor(deps, key, query.securePaymentId, cached.createdAt))) {
        await deps.db.insert(screeningResults).values({
          ...key,
          status: cached.status,
          reason: cached.reason,
          securePaymentId: query.securePaymentId,
          stage: query.stage,
          createdAt: cached.createdAt,
        });
        return {
          status: cached.status,
          reason: cached.reason,
          provider: name,
          policyId,
          fresh: true,
        };
      }
      return {
        status: cached.status,
        reason: cached.reason,
        provider: name,
        policyId,
        fresh: false,
      };
    }
    const provider = deps.screening.providers[name];
    if (!provider) continue;
    try {
      const verdict = await provider.screen({
        address: query.wallet,
        network: query.network,
        policyId,
      });
      await deps.db.insert(screeningResults).values({
        ...key,
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

interface CacheKey {
  readonly wallet: string;
  readonly provider: ScreeningProviderName;
  readonly policyId: string | null;
  readonly network: string;
}

function sameKey(key: CacheKey) {
  return and(
    eq(screeningResults.wallet, key.wallet),
    eq(screeningResults.provider, key.provider),
    key.policyId === null
      ? isNull(screeningResults.policyId)
      : eq(screeningResults.policyId, key.policyId),
    eq(screeningResults.network, key.network),
  );
}

/** The latest answer for the same wallet, provider, policy and network within the cache time. */
async function cachedResult(deps: ScreenDeps, key: CacheKey, now: Date) {
  if (deps.screening.cacheSeconds === 0) return null;
  const since = new Date(now.getTime() - deps.screening.cacheSeconds * 1000);
  const [row] = await deps.db
    .select({
      status: screeningResults.status,
      reason: screeningResults.reason,
      securePaymentId: screeningResults.securePaymentId,
      createdAt: screeningResults.createdAt,
    })
    .from(screeningResults)
    .where(and(sameKey(key), gt(screeningResults.createdAt, since)))
    .orderBy(desc(screeningResults.createdAt))
    .limit(1);
  return row ?? null;
}

/** Whether this link already holds the cached answer (it was reported to it then). */
async function answeredFor(
  deps: ScreenDeps,
  key: CacheKey,
  securePaymentId: string,
  createdAt: Date,
): Promise<boolean> {
  const [row] = await deps.db
    .select({ id: screeningResults.id })
    .from(screeningResults)
    .where(
      and(
        sameKey(key),
        eq(screeningResults.securePaymentId, securePaymentId),
        gte(screeningResults.createdAt, createdAt),
      ),
    )
    .limit(1);
  return row !== undefined;
}
