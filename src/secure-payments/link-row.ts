import type { securePayments } from '../db/schema.ts';

export type LinkRow = typeof securePayments.$inferSelect;
export type LinkStatus = LinkRow['status'];

/** The stored status, with `pending` past its expiry read as `expired`. */
export function effectiveStatus(row: LinkRow, now: Date): LinkStatus {
  return row.status === 'pending' && row.expiresAt <= now ? 'expired' : row.status;
}
