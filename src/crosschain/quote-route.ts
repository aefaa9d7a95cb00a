import type { LiFiStep } from '@lifi/types';
import type { Address, Hex } from 'viem';
import type { Clock } from '../base/clock.ts';
import { AlternateStatusError, AppError } from '../base/errors.ts';
import { decodeDepositV3 } from './across.ts';
import type { Aggregator } from './aggregator.ts';
import { AggregatorRefusal } from './aggregator-http.ts';
import {
  contractCallsOf,
  type Destination,
  destinationProblem,
  destinationTotal,
} from './destination-calls.ts';

/**
 * A route for one payer to pay one link from another chain: asked of the aggregator, its
 * destination calls checked against the link (destination-calls.ts) before anything else
 * looks at it, and kept for its short life so that a page asking `/pay` again gets the same
 * route. A route is never handed out at or after its `quoteExpiresAt`, nor from the cache when
 * less than `CACHE_MARGIN_SECONDS` of it remain (the payer needs that long to sign and send).
 */

/** The longest a quote is served, whatever the bridge's own deadline: the prices move. */
const QUOTE_LIFETIME_SECONDS = 120;
/** A cached quote with less left than this is asked again rather than served. */
const CACHE_MARGIN_SECONDS = 15;
/** The bridge deadline assumed when the source transaction cannot be read (LI.FI's diamond). */
const FALLBACK_DEADLINE_SECONDS = 600;
/** Routes held at most; the oldest go first. */
const CACHE_ENTRIES = 1_000;
/** How long a step handed out may be refreshed: a payer may come back to an open page. */
const ISSUED_LIFETIME_SECONDS = 3_600;

/** Where the payer pays from. */
interface RouteSource {
  readonly chainId: number;
  readonly token: Address;
  /** The wallet that sends the source transaction, and gets the tokens back if it fails. */
  readonly wallet: Address;
  /** The answer's names of the source (`ARBITRUM`, `USDT`), for messages. */
  readonly chainKey: string;
  readonly tokenKey: string;
}

export interface QuotedRoute {
  readonly step: LiFiStep;
  readonly fetchedAt: Date;
  /** Unix seconds: not served at or after it. */
  readonly expiresAt: number;
  /** Unix seconds: the bridge's deadline, by which the transfer must be done. */
  readonly executionDeadline: number;
  /** Whether the deadline was read from the source transaction or assumed. */
  readonly deadlineSource: 'decoded' | 'fallback';
}

export interface RouteQuoter {
  /** A validated route, from the cache while it has time left, else fresh. `key` names the link. */
  quote(key: string, source: RouteSource, destination: Destination): Promise<QuotedRoute>;
  /**
   * A step handed out for this link, with a fresh transaction (the aggregator's step
   * transaction), validated again; it becomes the route served for its wallet and source.
   * `crosschain_route_gone` when no such step was handed out here (or too long ago), or the
   * aggregator no longer has it.
   */
  refresh(key: string, stepId: string, destination: Destination): Promise<QuotedRoute>;
  /**
   * Throws 503 `crosschain_unavailable` once the route's `quoteExpiresAt` has come: for an
   * answer built around a route (balances read meanwhile), checked just before it leaves.
   */
  assertUnexpired(route: QuotedRoute): void;
  /**
   * The route kept for this link, wallet and source while it has time left, else null; nothing
   * is asked of the aggregator. What a payer's `paymentOptions` read its amount needed from.
   */
  known(key: string, wallet: string, chainKey: string, tokenKey: string): QuotedRoute | null;
}

/** A step handed out: whose it is, and the route it was. */
interface IssuedStep {
  readonly key: string;
  readonly cacheKey: string;
  readonly source: RouteSource;
  readonly route: QuotedRoute;
  /** Unix seconds. */
  readonly issuedAt: number;
}

const REFUSED_MESSAGE = 'The cross-chain route offered does not make the payment asked for';
const GONE_MESSAGE = 'This cross-chain route is gone: ask /pay with chain and token for a new one';

function bridgeDeadline(
  step: LiFiStep,
  fetchedAt: number,
): Pick<QuotedRoute, 'executionDeadline' | 'deadlineSource'> {
  const data = step.transactionRequest?.data;
  if (typeof data === 'string') {
    try {
      return {
        executionDeadline: decodeDepositV3(data as Hex).fillDeadline,
        deadlineSource: 'decoded',
      };
    } catch {
      // Not a deposit payreq can read: the fallback below.
    }
  }
  return {
    executionDeadline: fetchedAt + FALLBACK_DEADLINE_SECONDS,
    deadlineSource: 'fallback',
  };
}

export function createRouteQuoter(deps: {
  readonly aggregator: Aggregator;
  readonly clock: Clock;
}): RouteQuoter {
  /** The route served per link, wallet and source, while it may be served again. */
  const cache = new Map<string, QuotedRoute>();
  /** Every step handed out, by id, for `refresh`: longer than the cache, bounded in count. */
  const issued = new Map<string, IssuedStep>();
  const seconds = () => Math.floor(deps.clock.now().getTime() / 1000);

  /** A step the aggregator answered, held to what was asked before anything else reads it. */
  function checked(step: LiFiStep, source: RouteSource, destination: Destination): QuotedRoute {
    const problem = sourceProblem(step, source) ?? destinationProblem(step, destination);
    if (problem !== null) {
      throw new AppError('crosschain_route_refused', `${REFUSED_MESSAGE}: ${problem}`);
    }
    const fetchedAt = deps.clock.now();
    const at = Math.floor(fetchedAt.getTime() / 1000);
    const deadline = bridgeDeadline(step, at);
    const route: QuotedRoute = {
      step,
      fetchedAt,
      expiresAt: Math.min(deadline.executionDeadline, at + QUOTE_LIFETIME_SECONDS),
      ...deadline,
    };
    if (at >= route.expiresAt) throw expired('came back already expired');
    return route;
  }

  function keep(cacheKey: string, key: string, source: RouteSource, route: QuotedRoute): void {
    cache.delete(cacheKey);
    cache.set(cacheKey, route);
    issued.delete(route.step.id);
    issued.set(route.step.id, { key, cacheKey, source, route, issuedAt: seconds() });
    const now = seconds();
    for (const [oldKey, old] of cache) {
      if (cache.size <= CACHE_ENTRIES && old.expiresAt > now) break;
      cache.delete(oldKey);
    }
    for (const [id, old] of issued) {
      if (issued.size <= CACHE_ENTRIES && old.issuedAt + ISSUED_LIFETIME_SECONDS > now) break;
      issued.delete(id);
    }
  }

  async function fetchRoute(source: RouteSource, destination: Destination): Promise<QuotedRoute> {
    let step: LiFiStep;
    try {
      step = await deps.aggregator.quoteContractCalls({
        fromChain: source.chainId,
        fromToken: source.token,
        fromAddress: source.wallet,
        toChain: destination.chainId,
        toToken: destination.token,
        toAmount: String(destinationTotal(destination)),
        toFallbackAddress: source.wallet,
        contractCalls: contractCallsOf(destination),
      });
    } catch (error) {
      if (!(error instanceof AggregatorRefusal)) throw error;
      throw new AppError(
        'crosschain_unavailable',
        `No cross-chain route pays this from ${source.chainKey} ${source.tokenKey}: ${error.message}`,
        { cause: error },
      );
    }
    return checked(step, source, destination);
  }

  return {
    assertUnexpired(route) {
      if (seconds() >= route.expiresAt) throw expired('expired while its answer was prepared');
    },

    known(key, wallet, chainKey, tokenKey) {
      const cached = cache.get(cacheKeyOf(key, wallet, chainKey, tokenKey));
      return cached && seconds() < cached.expiresAt ? cached : null;
    },

    async quote(key, source, destination) {
      const cacheKey = cacheKeyOf(key, source.wallet, source.chainKey, source.tokenKey);
      const cached = cache.get(cacheKey);
      // A cached route is checked again: the link's fee legs may have been paid meanwhile.
      if (
        cached &&
        seconds() + CACHE_MARGIN_SECONDS < cached.expiresAt &&
        destinationProblem(cached.step, destination) === null
      ) {
        return cached;
      }
      cache.delete(cacheKey);
      const route = await fetchRoute(source, destination);
      keep(cacheKey, key, source, route);
      return route;
    },

    async refresh(key, stepId, destination) {
      const known = issued.get(stepId);
      if (!known || known.key !== key || known.issuedAt + ISSUED_LIFETIME_SECONDS <= seconds()) {
        throw new AppError('crosschain_route_gone', GONE_MESSAGE);
      }
      let step: LiFiStep;
      try {
        // The step as payreq was given it, not as the caller sends it back.
        step = await deps.aggregator.stepTransaction(known.route.step);
      } catch (error) {
        if (!(error instanceof AggregatorRefusal)) throw error;
        throw new AppError('crosschain_route_gone', `${GONE_MESSAGE} (${error.message})`, {
          cause: error,
        });
      }
      const refreshed = checked(step, known.source, destination);
      keep(known.cacheKey, key, known.source, refreshed);
      return refreshed;
    },
  };
}

/** 503: the route is past its `quoteExpiresAt`, and a route never leaves then. */
function expired(how: string): AlternateStatusError {
  return new AlternateStatusError(
    'crosschain_unavailable',
    `The cross-chain route ${how}; try again shortly`,
  );
}

/** What is wrong with the step's source side, or null: it must spend what the payer chose. */
function sourceProblem(step: LiFiStep, source: RouteSource): string | null {
  const { action, transactionRequest: tx } = step;
  if (action.fromChainId !== source.chainId) return `it starts on chain ${action.fromChainId}`;
  if (action.fromToken.address.toLowerCase() !== source.token.toLowerCase()) {
    return `it spends ${action.fromToken.address}`;
  }
  if (tx?.chainId !== undefined && tx.chainId !== source.chainId) {
    return `its transaction is for chain ${tx.chainId}`;
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(step.estimate.approvalAddress)) return 'no approval address';
  return null;
}

/** Where a route is kept: per link (or request), payer wallet, source chain and token. */
function cacheKeyOf(key: string, wallet: string, chainKey: string, tokenKey: string): string {
  return [key, wallet.toLowerCase(), chainKey, tokenKey].join(':');
}
