import type { BlockReason, Child } from '../../secure-payments/link-children.ts';
import { effectiveStatus } from '../../secure-payments/link-row.ts';

/**
 * How a blocked child of a multicall payout is told to the caller (api-facts §2.10): the
 * reason's English text, its translation key, what to do about it, and the child's context.
 * Which reason applies is the link core's (`childBlock`).
 */

export const RECOVERY_ACTIONS = [
  'remove_child',
  'recreate_reduced',
  'wait_for_quote_refresh',
  'switch_route',
  'recreate_after_cooldown',
  'support_required',
] as const;
export type RecoveryAction = (typeof RECOVERY_ACTIONS)[number];

/** What the caller can do about a blocked child: drop it, except where waiting helps. */
export function recoveryActionOf(reason: BlockReason): RecoveryAction {
  switch (reason) {
    case 'request_processing':
      return 'recreate_after_cooldown';
    case 'compliance_failed':
      return 'support_required';
    default:
      return 'remove_child';
  }
}

/** Stable keys a client can translate; the English text is `BLOCK_MESSAGES`. */
export function messageKeyOf(reason: BlockReason): string {
  return `multicall.child.${reason}`;
}

export const BLOCK_MESSAGES: Readonly<Record<BlockReason, string>> = {
  not_found: 'No secure payment has this token',
  not_owned: 'This secure payment belongs to another account',
  not_outgoing: 'This secure payment is an incoming link, not a payout',
  not_single_payment: 'This secure payment is not a single payout link (a batch or a multicall)',
  invalid_child_linkage:
    'This payout cannot be paid together with the first child (another network kind, network or creatorWalletAddress)',
  already_paid: 'This payout has already been paid',
  request_processing: 'This payout is already part of another pending multicall payout',
  secure_payment_expired: 'This payout link has expired',
  secure_payment_not_pending: 'This payout link is no longer pending (invalidated or merged)',
  compliance_failed: 'This payout link was blocked by compliance screening',
  not_payable_child:
    'This payout cannot be paid in a batch (TRX on Tron, or a network this server no longer serves)',
};

/** The reference's context of a child: what it is and where it stands. */
export function childContext(
  token: string,
  position: number,
  child: Pick<Child, 'row' | 'requests'> | null,
  now: Date,
): Record<string, unknown> {
  const request = child?.requests[0];
  return {
    requestId: request?.requestId ?? '',
    securePaymentToken: token,
    position,
    hasBeenPaid: request?.status === 'paid' || child?.row.status === 'completed',
    ...(child && {
      securePaymentStatus: effectiveStatus(child.row, now),
      expiresAt: child.row.expiresAt.toISOString(),
      network: child.row.network,
    }),
    ...(request && { requestStatus: request.status, currency: request.paymentCurrency }),
  };
}
