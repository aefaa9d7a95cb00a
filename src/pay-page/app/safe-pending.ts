/**
 * A link waiting for a Safe: a Safe transaction paying it was recorded (`POST /{token}/intent`
 * with its `safeTxHash`), and until the Safe executes it, it fails, or its deadline passes, the
 * link answers 423. That is no error: the page says whom the link waits for and until when, on
 * load too (safe-screen.ts), and follows the link until tracking ends.
 */

export interface SafePending {
  readonly safeTxHash: string;
  readonly chainId: number | null;
  /** Unix seconds: tracking ends then, executed or not, and the link is payable again. */
  readonly deadline: number | null;
}

/** What the page that signed knows besides: the Safe, and how many signatures it still needs. */
export interface SafeProgress {
  readonly safe: string;
  readonly threshold: number;
  readonly signed: number;
}

interface PendingBody {
  readonly requestStatuses?: readonly {
    readonly safeTxHash?: unknown;
    readonly chainId?: unknown;
    readonly safePaymentDeadline?: unknown;
  }[];
}

/** The Safe transaction of a 423's body; null when it names none (a lock of another kind). */
export function safePendingOf(body: Readonly<Record<string, unknown>>): SafePending | null {
  const { requestStatuses } = body as PendingBody;
  const first = requestStatuses?.find((status) => typeof status.safeTxHash === 'string');
  if (!first) return null;
  return {
    safeTxHash: String(first.safeTxHash),
    chainId: typeof first.chainId === 'number' ? first.chainId : null,
    deadline: typeof first.safePaymentDeadline === 'number' ? first.safePaymentDeadline : null,
  };
}
