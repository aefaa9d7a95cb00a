import type { Claimed } from './claims.ts';

/**
 * Deliveries written already claimed, handed straight to this process's dispatcher: a payment's
 * webhook leaves as soon as the transaction that records it commits, without a claim.
 */
export interface DeliveryHandoff {
  /**
   * Room for `rows` new deliveries, and the lease to write them with; null when they should
   * wait to be claimed. What is granted is held until `offer` or `release`.
   */
  lease(now: Date, rows: number): Date | null;
  /** Deliveries written with a granted lease, once their transaction committed. */
  offer(rows: readonly Claimed[]): void;
  /** Gives back the room of `rows` leased in a transaction that rolled back. */
  release(rows: number): void;
}
