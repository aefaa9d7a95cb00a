import type { Payer } from '../payments/payer.ts';
import type { PayerSafe } from '../payments/safe/safe-transaction.ts';
import type { CrossChainQuery } from './link-crosschain.ts';
import type { Link } from './links.ts';

/**
 * How a link that groups others (`Link.children`: a multicall parent) is shown and paid. Its
 * URLs are a link's (`GET /v2/secure-payments/{token}`, `/pay`, `/calldata`), so the link routes
 * serve it, but its answers belong to the feature that makes such links (payouts,
 * `src/payouts/multicall/`), which may import this folder and not the reverse: app.ts hands its
 * answers in here. Their schemas are that feature's too, referred to by `$id` (`MulticallView`,
 * `MulticallCalldata`).
 */
export interface ParentLinks {
  /** What the pay page reads for a parent. */
  readonly display: (link: Link, now: Date) => object;
  /**
   * What a parent's payer sends, for the payer's wallet (a Safe's transaction, with `safe`;
   * from another chain and token, with `crossChain`).
   */
  readonly calldata: (
    link: Link,
    payer: Payer,
    now: Date,
    safe: PayerSafe | null,
    crossChain: CrossChainQuery | null,
  ) => Promise<object>;
}
