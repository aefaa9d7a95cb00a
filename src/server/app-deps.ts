import type { Logger } from 'pino';
import type { Clock } from '../base/clock.ts';
import type { KeyRing } from '../base/key-ring.ts';
import type { SecretBox } from '../base/secret-box.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { NetworkReadiness } from '../chains/network-probe.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { Config } from '../config/config.ts';
import type { Aggregator } from '../crosschain/aggregator.ts';
import type { DatabaseHandle } from '../db/client.ts';
import type { RateLimits } from '../http/budgets.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { RelayerHealth } from '../payouts/recurring/relayer-health.ts';
import type { Eip1193Provider } from '../sandbox/chain.ts';

/** What the HTTP application is built from (`buildApp`): the process's parts. */
export interface AppDeps {
  readonly config: Config;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  readonly database: DatabaseHandle;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Per-caller request budgets (main.ts); absent in tests that do not exercise them. */
  readonly rateLimiter?: RateLimiter | undefined;
  /** Budgets other than the defaults (tests). */
  readonly rateLimits?: Partial<RateLimits> | undefined;
  /** Seals and opens webhook signing secrets (SECRET_KEY). */
  readonly secretBox: SecretBox;
  /** Seals and opens personal data at rest (SECRET_KEY, DATA_KEYS). */
  readonly keyRing: KeyRing;
  /** Called when deliveries were queued outside payment detection (tests, redeliveries). */
  readonly wakeDispatcher?: (() => void) | undefined;
  /**
   * The sandbox chain, when `npm start` runs one: its JSON-RPC is served at /sandbox/rpc (the
   * second chain's, when it runs, at /sandbox-b/rpc).
   */
  readonly sandbox?:
    | {
        readonly provider: Eip1193Provider;
        readonly second?: { readonly provider: Eip1193Provider } | null | undefined;
      }
    | undefined;
  /** The recurring executors' relayer checks, shown by `/readyz` (when this process runs them). */
  readonly relayerHealth?: (() => readonly RelayerHealth[]) | undefined;
  /** The networks' start check, shown by `/readyz` (main.ts runs it). */
  readonly networkReadiness?: (() => readonly NetworkReadiness[]) | undefined;
  /** True once the process is draining before it stops (`/readyz` answers 503). */
  readonly stopping?: (() => boolean) | undefined;
  /** Where the built pay page is (tests); dist/pay-page by default. */
  readonly payPageDir?: string | undefined;
  /** Where the built dashboard is (tests); dist/dashboard by default. */
  readonly dashboardDir?: string | undefined;
  /** The process's routing aggregator, shared with its workers (made here otherwise). */
  readonly aggregator?: Aggregator | undefined;
  /**
   * The process's metrics, shared with its workers (when `METRICS_*` asks for them): every
   * answer is counted, and `/metrics` is served here when `METRICS_TOKEN` is set without a
   * `METRICS_PORT` of its own.
   */
  readonly metrics?: Metrics | undefined;
}
