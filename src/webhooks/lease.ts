import { heldRounds } from './scheduler.ts';

/**
 * The dispatcher's sizes (dispatcher.ts): its send slots, its claims, and how long a claim
 * holds its rows.
 */

/** Sends in flight at most, and deliveries claimed by one `runOnce`. */
export const CONCURRENCY = 20;
/**
 * A started dispatcher claims this many at once, as soon as fewer than `REFILL` claimed rows
 * wait for a slot: a claim is a write the database must flush, as slow as a hundred sends on
 * loopback, so the next batch is asked for while three rounds still wait (with one round
 * waiting, the sends stood idle for a third of the time, waiting for claims).
 */
export const CLAIM = 5 * CONCURRENCY;
export const REFILL = 3 * CONCURRENCY;
/**
 * A claim outlives this many attempts' timeouts, plus a margin; after it another dispatcher may
 * retry. Fewer than `REFILL + CLAIM` rows wait for a slot, eight rounds of all the slots, and
 * an endpoint holds at most `heldRounds` rounds of its own slots' sends (ten), so a claimed
 * row's attempt ends within ten timeouts while its endpoint keeps its share. Not so when many
 * accounts take turns for the slots with endpoints that answer slowly: a row that waited until
 * less than an attempt's timeout of its lease is left is given back unsent (`lapsing`).
 */
const LEASE_TIMEOUTS = Math.max((REFILL + CLAIM) / CONCURRENCY, heldRounds(CONCURRENCY)) + 1;
export const LEASE_MARGIN_MS = 30_000;

/** How long a claim holds its rows, with `timeoutMs` per attempt. */
export function claimLeaseMs(timeoutMs: number): number {
  return LEASE_TIMEOUTS * timeoutMs + LEASE_MARGIN_MS;
}
