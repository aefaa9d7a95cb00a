import { getAddress, type Hex, type PublicClient, parseAbi, zeroAddress } from 'viem';
import { bounded } from '../base/bounded.ts';

/**
 * The operator the wrapper stored for a reference (`getPaymentData`, contracts.md §5.1): no
 * event names it, and an authorization made for another operator holds funds ours cannot move.
 * The wrapper keeps one payment per reference and never forgets it, so the answer for a
 * reference it knows does not change (until a reorganisation takes its authorization back).
 */
const paymentDataAbi = parseAbi([
  'function getPaymentData(bytes8 paymentReference) view returns ((address payer, address merchant, address operator, address token, uint96 amount, uint96 maxAmount, uint48 preApprovalExpiry, uint48 authorizationExpiry, uint48 refundExpiry, bytes32 commercePaymentHash))',
]);

/** The stored operator, or null when the wrapper knows no payment of the reference. */
export async function wrapperOperator(
  client: PublicClient,
  wrapper: string,
  reference: Hex,
): Promise<string | null> {
  const data = await client.readContract({
    address: getAddress(wrapper),
    abi: paymentDataAbi,
    functionName: 'getPaymentData',
    args: [reference],
  });
  return data.operator === zeroAddress ? null : getAddress(data.operator);
}

/** Why detection could not tell whose an authorization is: the pass is tried again. */
class OperatorUnknownError extends Error {
  constructor(reference: Hex, reason: string) {
    super(`the wrapper's operator of ${reference} could not be read (${reason})`);
  }
}

export interface WrapperOperators {
  /** The stored operator, read at most once per reference; throws when the node is silent. */
  of(wrapper: string, reference: Hex): Promise<string | null>;
  /** Forgets every answer (a reorganisation may have taken an authorization back). */
  forget(): void;
}

/** Remembers this many answers, then starts over: a bound, not a working set. */
const REMEMBERED = 10_000;

export function createWrapperOperators(
  client: () => PublicClient,
  timeoutMs = 5_000,
): WrapperOperators {
  const known = new Map<string, string>();
  return {
    async of(wrapper, reference) {
      const key = `${wrapper.toLowerCase()} ${reference.toLowerCase()}`;
      const remembered = known.get(key);
      if (remembered) return remembered;
      const read = Promise.resolve().then(() => wrapperOperator(client(), wrapper, reference));
      const outcome = await bounded(read, timeoutMs);
      if (!outcome.ok) throw new OperatorUnknownError(reference, outcome.reason);
      // Only a stored operator is final: an unknown reference may be authorized later.
      if (outcome.value !== null) {
        if (known.size >= REMEMBERED) known.clear();
        known.set(key, outcome.value);
      }
      return outcome.value;
    },
    forget: () => known.clear(),
  };
}
