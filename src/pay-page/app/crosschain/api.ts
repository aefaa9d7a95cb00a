import { answerOf, tokenPath } from '../answer.ts';
import type { EvmCall } from '../calldata.ts';
import type { PageConfig } from '../config.ts';

/**
 * The API's answers for paying a link from another chain (docs/guides/crosschain.md), as far
 * as the page reads them: the payer's `paymentOptions`, the route `/pay?chain=&token=`
 * answers, a refreshed step, and the intent that starts the transfer's tracking.
 */

/** Chain key (`ARBITRUM`) → token key (`USDT`) → the payer's balance and what paying takes. */
export type PaymentOptions = Readonly<
  Record<
    string,
    Readonly<
      Record<
        string,
        {
          readonly balance: string;
          readonly hasEnoughBalance: boolean;
          readonly neededAmount: string;
        }
      >
    >
  >
>;

interface GasCost {
  readonly amountNative: string;
  readonly currency: string;
}

/** The step the aggregator quoted, handed back as is to refresh it; the page reads its amount. */
export interface RawStep {
  readonly id: string;
  readonly action: { readonly fromAmount: string };
}

export interface Route {
  readonly transactions: readonly EvmCall[];
  readonly metadata: {
    readonly routeType: 'crosschain' | 'samechain';
    readonly paymentTransactionIndex: number;
    readonly hasEnoughBalance?: boolean;
    readonly hasEnoughGas?: boolean;
    readonly balance?: string;
    readonly sourceAmount: string;
    /** Unix seconds: past it, the bridge call must not be sent. */
    readonly quoteExpiresAt: number;
    readonly rawStep: RawStep;
    readonly costBreakdown: {
      readonly totalGasFee: GasCost;
      readonly bridgeFee: { readonly currency: string; readonly amount: string };
      readonly totals: {
        readonly paymentAmount: string;
        readonly paymentCurrency: string;
        readonly sourceAmount: string;
      };
    };
  };
}

/**
 * A multicall payout's Variant C from a source chain (`executionKind: evm_cross_chain`): the
 * approvals to each bridge contract, one bridge call per routed child (`bridgeTxIndices`), then
 * the children already on the source chain paid directly, every transaction on the source chain.
 */
export interface MulticallRoute {
  readonly transactions: readonly EvmCall[];
  readonly metadata: {
    readonly hasEnoughBalance?: boolean;
    readonly hasEnoughGas?: boolean;
    readonly balance?: string;
    /** All the payer spends: the deposits with the bridge's fees, and the direct children. */
    readonly sourceAmount?: string;
    /** Absent on the same-chain answer (every child already on the source chain). */
    readonly bridgeFeeAmount?: string;
    readonly quoteExpiresAt?: number;
    readonly bridgeTxIndices?: readonly number[];
    readonly costBreakdown?: { readonly totalGasFee: GasCost };
  };
}

export interface RefreshedStep {
  readonly transactionRequest: {
    readonly to: `0x${string}`;
    readonly data: `0x${string}`;
    readonly value?: string;
  };
  readonly rawStep: RawStep;
  readonly quoteExpiresAt: number;
}

export interface BridgeIntent {
  /** The source network's name in intents (`ARBITRUM`). */
  readonly chain: string;
  /** The link's token (`USDC`). */
  readonly token: string;
  readonly txHash: string;
  readonly payerAddress: string;
  readonly sourceToken: string;
  readonly sourceAmount: string;
}

export function crossChainApi(config: PageConfig, token: string) {
  const answer = answerOf(config);
  const path = tokenPath(token);
  const post = <T>(to: string, body: unknown) =>
    answer<T>(`${path}${to}`, {
      method: 'POST',
      headers: { 'x-client-id': config.clientId, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const wallet = (address: string) => `wallet=${encodeURIComponent(address)}`;
  return {
    /** The payer's balances on every chain the link can be paid from. */
    options: async (address: string): Promise<PaymentOptions> =>
      (await answer<{ paymentOptions?: PaymentOptions }>(`${path}?${wallet(address)}`))
        .paymentOptions ?? {},
    route: (address: string, chain: string, source: string) =>
      answer<Route>(
        `${path}/pay?${wallet(address)}&chain=${encodeURIComponent(chain)}&token=${encodeURIComponent(source)}`,
      ),
    /** A multicall parent's route from that source (it has no step to refresh: asked again). */
    multicallRoute: (address: string, chain: string, source: string) =>
      answer<MulticallRoute>(
        `${path}/pay?${wallet(address)}&chain=${encodeURIComponent(chain)}&token=${encodeURIComponent(source)}`,
      ),
    refresh: (step: RawStep) => post<RefreshedStep>('/refresh-step-transaction', { step }),
    record: (intent: BridgeIntent) =>
      post<{ intentId: string }>('/intent', { ...intent, executionKind: 'evm_cross_chain' }),
  };
}

export type CrossChainApi = ReturnType<typeof crossChainApi>;
