/** The calldata answers (`/pay`) the page sends from a wallet: EVM calls, TronWeb calls. */

export interface EvmCall {
  readonly to: `0x${string}`;
  readonly data: `0x${string}`;
  readonly value: `0x${string}`;
  readonly chainId: number;
}

export interface TronParameter {
  readonly type: string;
  readonly value: string | readonly string[];
}

export interface TronCall {
  readonly type: 'tron';
  readonly contractAddress: string;
  readonly functionSelector: string;
  /** Arrays (`address[]`, `uint256[]`, `bytes[]`) go to TronWeb as arrays, unchanged. */
  readonly parameters: readonly TronParameter[];
  readonly feeLimit: number;
  readonly callValue: number;
}

interface CalldataMetadata {
  readonly hasEnoughBalance?: boolean | null;
  readonly hasEnoughGas?: boolean | null;
  readonly balance?: string;
  readonly requiredAmount?: string;
  /** A fiat link's quote (payreq's): the most the wallet lets the proxy take, and the rate. */
  readonly maxToSpend?: string;
  readonly conversionRate?: string;
  readonly rateTimestamp?: string;
  /** Seconds: an older rate makes the payment revert. */
  readonly maxRateTimespan?: number;
  readonly insufficientTokens?: readonly {
    readonly tokenSymbol?: string;
    readonly required: string;
    readonly available: string;
  }[];
}

/** The EIP-2612 permit a smart account's owner EOA signs (`eoaWallet`); numbers in decimal. */
export interface EoaApprovalPermit {
  readonly domain: {
    readonly name?: string;
    readonly version?: string;
    readonly chainId?: number;
    readonly verifyingContract?: `0x${string}`;
    readonly salt?: `0x${string}`;
  };
  readonly message: {
    readonly owner: `0x${string}`;
    readonly spender: `0x${string}`;
    readonly value: string;
    readonly nonce: string;
    readonly deadline: string;
  };
}

export type Calldata =
  | {
      readonly paymentType: 'single';
      readonly transactions: readonly (EvmCall | TronCall)[];
      readonly metadata: CalldataMetadata & {
        readonly approvalTransactionsCount?: number;
        readonly paymentTransactionIndex?: number;
        /** With `eoaWallet`: whether the EOA must still let the account take its tokens. */
        readonly eoaApprovalRequired?: boolean;
        readonly eoaApproval?: { readonly tokenAddress: `0x${string}` };
        readonly eoaApprovalPermit?: EoaApprovalPermit;
      };
    }
  | {
      /** Variant C: `transactions` is every step in order (approvals, then the batch). */
      readonly paymentType: 'multicall';
      readonly transactions: readonly (EvmCall | TronCall)[];
      readonly metadata: CalldataMetadata & { readonly paymentTransactionIndex: number };
    }
  | {
      readonly paymentType?: undefined;
      readonly ERC20ApprovalTransactions: readonly EvmCall[];
      readonly batchPaymentTransaction: EvmCall;
      readonly metadata: CalldataMetadata;
    };
