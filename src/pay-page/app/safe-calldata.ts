/** What the page reads and sends to pay from a Safe (wallet/safe.ts). */

/** `/pay`'s answer for a Safe: the one Safe transaction every call of the link is made in. */
export interface SafeCalldata {
  /** The Safe's balances, as far as the page reads them. */
  readonly metadata: {
    readonly hasEnoughBalance?: boolean | null;
    readonly balance?: string;
    readonly requiredAmount?: string;
    readonly maxToSpend?: string;
    readonly insufficientTokens?: readonly {
      readonly tokenSymbol?: string;
      readonly required: string;
      readonly available: string;
    }[];
    /** Unix seconds: how long the link waits for the Safe. */
    readonly safePaymentDeadline?: number;
  };
  readonly safeTransaction: {
    readonly safeAddress: string;
    readonly chainId: number;
    readonly to: `0x${string}`;
    readonly value: string;
    readonly data: `0x${string}`;
    readonly operation: number;
    readonly safeTxGas: string;
    readonly baseGas: string;
    readonly gasPrice: string;
    readonly gasToken: `0x${string}`;
    readonly refundReceiver: `0x${string}`;
    readonly nonce: string;
    readonly safeTxHash: `0x${string}`;
    readonly threshold: number;
    readonly owners: readonly string[];
  };
}

/** `POST /{token}/intent` for a Safe transaction its owners are signing. */
export interface SafeIntent {
  readonly safeTxHash: string;
  /** The network's name in intents (`BASE`). */
  readonly chain: string;
  /** The symbol the link is paid in (`USDC`). */
  readonly token: string;
  readonly payerAddress: string;
}
