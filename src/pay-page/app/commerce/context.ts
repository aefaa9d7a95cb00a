import type { NetworkFacts, PageConfig } from '../config.ts';
import type { CommerceApi, CommerceView } from './api.ts';

/** What the wallet code gets of the commerce page it authorizes from. */
export interface CommerceContext {
  readonly config: PageConfig;
  readonly api: CommerceApi;
  readonly token: string;
  readonly view: CommerceView;
  readonly network: NetworkFacts;
  show(screen: HTMLElement): void;
  /** Back to the payment, saying why the attempt failed; the wallets are offered again. */
  retry(problem: string): void;
  /** The authorization was sent and seen: follow the payment until it reads held. */
  follow(): void;
  /** Reads the payment again and shows where it stands (authorized elsewhere, expired). */
  reload(): void;
}
