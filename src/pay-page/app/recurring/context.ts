import type { NetworkFacts, PageConfig } from '../config.ts';
import type { RecurringApi, RecurringView } from './api.ts';

/** What the wallet code gets of the schedule page it signs from. */
export interface RecurringContext {
  readonly config: PageConfig;
  readonly api: RecurringApi;
  readonly token: string;
  readonly view: RecurringView;
  readonly network: NetworkFacts;
  show(screen: HTMLElement): void;
  /** Back to the schedule, saying why the attempt failed; the wallets are offered again. */
  retry(problem: string): void;
  /** Reads the schedule again and shows where it stands (signed, or changed meanwhile). */
  reload(): void;
}
