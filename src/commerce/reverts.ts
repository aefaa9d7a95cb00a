import { decodeErrorResult } from 'viem';
import { commerceErrorsAbi } from '../payments/commerce/errors.ts';
import { revertData } from '../payments/sender.ts';

/** A commerce contract's refusal of a call, decoded from its revert data. */
export interface ContractRefusal {
  /** The error and its arguments, as the contract names them: `AfterAuthorizationExpiry(…)`. */
  readonly text: string;
  /** The chain's time the contract judged an expiry by, when the error carries it. */
  readonly chainTime: Date | null;
}

/** The errors whose first argument is the chain's time (`block.timestamp`) they judged by. */
const TIMED = new Set([
  'AfterPreApprovalExpiry',
  'AfterAuthorizationExpiry',
  'BeforeAuthorizationExpiry',
  'AfterRefundExpiry',
]);

/**
 * The refusal `error` (a gas estimate's or a call's) carries, decoded against the commerce
 * contracts' errors (and Solidity's `Error(string)` and `Panic(uint256)`); null when it carries
 * no revert data, or data no commerce contract reverts with.
 */
export function contractRefusal(error: unknown): ContractRefusal | null {
  const data = revertData(error);
  if (data === null) return null;
  try {
    const { errorName, args } = decodeErrorResult({ abi: commerceErrorsAbi, data });
    const values: readonly unknown[] = args ?? [];
    const at = values[0];
    const chainTime =
      TIMED.has(errorName) && (typeof at === 'number' || typeof at === 'bigint')
        ? new Date(Number(at) * 1000)
        : null;
    return { text: `${errorName}(${values.map(String).join(', ')})`, chainTime };
  } catch {
    return null;
  }
}
