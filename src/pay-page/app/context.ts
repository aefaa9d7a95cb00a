import type { Api, Display } from './api.ts';
import type { NetworkFacts, PageConfig } from './config.ts';
import type { SafePending, SafeProgress } from './safe-pending.ts';

/** What the wallet code gets of the page it pays from. */
export interface PayContext {
  readonly config: PageConfig;
  readonly api: Api;
  readonly token: string;
  readonly display: Display;
  readonly network: NetworkFacts;
  show(screen: HTMLElement): void;
  /** Back to the summary, saying why the attempt failed; the wallets are offered again. */
  retry(problem: string): void;
  /** The link changed under the payer (paid, expired): read it again and show its state. */
  reload(): void;
  /** After the last transaction: follows the link until detection marks it completed. */
  follow(txHashes: readonly string[]): void;
  /** After an owner signed a Safe transaction the Safe cannot execute yet: waits for the Safe. */
  waitForSafe(pending: SafePending, progress: SafeProgress): void;
}
