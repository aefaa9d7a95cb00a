import type { NetworkFacts, PageConfig } from '../config.ts';
import type { CommerceApi, CommerceView } from './api.ts';

/** What the buyer's wallet does from the page: authorize the payment, or reclaim it. */
export type BuyerAction = 'authorize' | 'reclaim';

/** What the wallet code gets of the commerce page it authorizes or reclaims from. */
export interface CommerceContext {
  readonly config: PageConfig;
  readonly api: CommerceApi;
  readonly token: string;
  readonly view: CommerceView;
  readonly network: NetworkFacts;
  readonly action: BuyerAction;
  show(screen: HTMLElement): void;
  /** Back to the payment, saying why the attempt failed; the wallets are offered again. */
  retry(problem: string): void;
  /**
   * The transaction was sent and seen: follow the payment until it reads held (after an
   * authorization) or reclaimed (once detection sees the reclaim).
   */
  follow(): void;
  /** Reads the payment again and shows where it stands (authorized elsewhere, expired). */
  reload(): void;
}
