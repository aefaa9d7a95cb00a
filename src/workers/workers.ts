import type { Logger } from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import type { Clock } from '../base/clock.ts';
import type { SecretBox } from '../base/secret-box.ts';
import type { ChainClients } from '../chains/clients.ts';
import { networkConfig } from '../chains/network-config.ts';
import { isSandboxNetwork, type NetworkId } from '../chains/networks.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { createTronGridClient } from '../chains/tron-grid.ts';
import { commerceWatchers } from '../commerce/detect-events.ts';
import { type CommerceReconciler, createCommerceReconciler } from '../commerce/reconciler.ts';
import type { Config } from '../config/config.ts';
import { type Aggregator, createAggregator } from '../crosschain/aggregator.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { createLeaderLock } from '../db/leader-lock.ts';
import { createEvmSource } from '../detection/evm-source.ts';
import { createIndexer, type Indexer } from '../detection/indexer.ts';
import { createTronBlockSource } from '../detection/tron-source.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { createRecurringExecutor, type RecurringExecutor } from '../payouts/recurring/executor.ts';
import { relayerAccount } from '../payouts/recurring/relayer.ts';
import type { RelayerHealth } from '../payouts/recurring/relayer-health.ts';
import { createOccurrenceGenerator, type OccurrenceGenerator } from '../requests/occurrences.ts';
import { sandboxRelayer } from '../sandbox/addresses.ts';
import { type CompletionScreener, createCompletionScreener } from '../screening/completion.ts';
import { createScreeningService } from '../screening/screen.ts';
import { type BridgeTracker, createBridgeTracker } from '../secure-payments/bridge-tracker.ts';
import { createSafeTracker, type SafeTracker } from '../secure-payments/safe-tracker.ts';
import { createDispatcher, type Dispatcher } from '../webhooks/dispatcher.ts';
import { createJanitor } from './janitor.ts';
import { createSettlement } from './settlement.ts';

export interface Workers {
  readonly dispatcher: Dispatcher;
  readonly indexers: readonly Indexer[];
  readonly occurrences: OccurrenceGenerator;
  readonly recurringExecutors: readonly RecurringExecutor[];
  readonly safeTracker: SafeTracker;
  readonly bridgeTracker: BridgeTracker;
  readonly commerceReconciler: CommerceReconciler;
  /** Screens the payers of completed screened links again (src/screening/completion.ts). */
  readonly completionScreener: CompletionScreener;
  /** Each recurring executor's last relayer check (for `/readyz`). */
  relayerHealth(): RelayerHealth[];
  start(): void;
  stop(): Promise<void>;
}

/**
 * The background work of a payreq process: one indexer per network it can read (an RPC is
 * configured, or the sandbox runs), the webhook dispatcher, the generator of recurring
 * requests' occurrences, the executor of recurring payouts (one per network with a recurring
 * proxy, a transport and a relayer key), the trackers of payers' Safe transactions and cross-chain transfers, the reconciler of commerce transactions left in flight, and the janitor that deletes expired challenges, nonces
 * and sessions. With Postgres, several processes may run them: each network is indexed, and its
 * recurring payouts triggered, by whichever process holds its lock, and dispatchers and
 * generators share their work through row locks.
 */
export function createWorkers(deps: {
  config: Config;
  database: DatabaseHandle;
  chains: ChainRegistry;
  clients: ChainClients;
  logger: Logger;
  clock: Clock;
  secretBox: SecretBox;
  /** Networks that have a transport besides RPC_URL (the sandbox). */
  transportNetworks?: readonly NetworkId[];
  /** The routing aggregator the API uses (one breaker per process); made here otherwise. */
  aggregator?: Aggregator;
  /** The process's metrics: webhook attempts and indexer progress are counted into them. */
  metrics?: Metrics;
}): Workers {
  const metrics = deps.metrics;
  const db = deps.database.db;
  const dispatcher = createDispatcher({
    db: deps.database.queue,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'webhooks' }),
    secretBox: deps.secretBox,
    config: deps.config.webhooks,
    ...(metrics && {
      onAttempt: (status) => metrics.webhookAttempt(status === 'pending' ? 'retrying' : status),
    }),
  });
  const janitor = createJanitor({
    db,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'janitor' }),
  });
  const occurrences = createOccurrenceGenerator({
    db,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'recurring-requests' }),
    onGenerated: () => dispatcher.wake(),
  });
  const indexers: Indexer[] = [];
  for (const network of deps.chains.networks) {
    const id = network.id;
    const configured = networkConfig(deps.config.networks, id);
    if (!configured?.rpcUrl && !deps.transportNetworks?.includes(id)) continue;
    const contracts = deps.chains.contracts(id);
    const source =
      network.kind === 'tron'
        ? createTronBlockSource({
            client: createTronGridClient({
              baseUrl: configured?.rpcUrl ?? '',
              ...(deps.config.tronApiKey && { apiKey: deps.config.tronApiKey }),
            }),
            proxyAddress: contracts.erc20FeeProxy ?? '',
            network: 'tron',
          })
        : createEvmSource({
            network: id,
            client: deps.clients.evm(id),
            contracts,
          });
    indexers.push(
      createIndexer({
        db,
        clock: deps.clock,
        logger: deps.logger.child({ worker: 'indexer' }),
        chains: deps.chains,
        network: id,
        source,
        confirmations: configured?.confirmations ?? network.defaultConfirmations,
        lock: createLeaderLock(deps.database, `payreq:indexer:${id}`),
        sink: createSettlement({ chains: deps.chains, handoff: dispatcher }),
        watchers: commerceWatchers(deps.chains, deps.clients, id),
        onRecorded: () => dispatcher.wake(),
        ...(metrics && { onProgress: (progress) => metrics.indexerProgress(id, progress) }),
      }),
    );
  }
  const recurringExecutors = createRecurringExecutors(deps, () => dispatcher.wake());
  // The networks this process reads (it indexes them), EVM ones: a Safe or an escrow is on
  // none other.
  const evmClient = (network: string) => {
    const id = indexers.find((indexer) => indexer.network === network)?.network;
    return id !== undefined && deps.chains.network(id)?.kind === 'evm'
      ? deps.clients.evm(id)
      : null;
  };
  const safeTracker = createSafeTracker({
    db,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'safe-tracker' }),
    client: evmClient,
    lock: createLeaderLock(deps.database, 'payreq:safe-tracker'),
    onFailed: () => dispatcher.wake(),
  });
  const bridgeTracker = createBridgeTracker({
    db,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'bridge-tracker' }),
    aggregator: deps.aggregator ?? createAggregator({ config: deps.config.crosschain }),
    chains: deps.chains,
    sink: createSettlement({ chains: deps.chains, handoff: dispatcher }),
    settleAfterMs: deps.config.workers.bridgeSettleAfterMs,
    lock: createLeaderLock(deps.database, 'payreq:bridge-tracker'),
    onEnded: () => dispatcher.wake(),
  });
  const commerceReconciler = createCommerceReconciler({
    db,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'commerce-reconciler' }),
    client: evmClient,
    graceMs: deps.config.workers.commerceReconcileGraceMs,
    lock: createLeaderLock(deps.database, 'payreq:commerce-reconciler'),
  });
  const completionScreener = createCompletionScreener({
    db,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'completion-screener' }),
    screening: createScreeningService(deps.config.screening),
    lock: createLeaderLock(deps.database, 'payreq:completion-screener'),
    wakeDispatcher: () => dispatcher.wake(),
  });
  return {
    dispatcher,
    indexers,
    completionScreener,
    occurrences,
    recurringExecutors,
    safeTracker,
    bridgeTracker,
    commerceReconciler,
    relayerHealth: () =>
      recurringExecutors.flatMap((executor) => {
        const health = executor.health();
        return health ? [health] : [];
      }),
    start() {
      dispatcher.start(deps.config.workers.dispatcherPollMs);
      janitor.start();
      occurrences.start();
      for (const indexer of indexers) indexer.start(deps.config.workers.indexerPollMs);
      for (const executor of recurringExecutors) {
        executor.start(deps.config.workers.recurringPollMs);
      }
      safeTracker.start(deps.config.workers.safeTrackerPollMs);
      bridgeTracker.start(deps.config.workers.bridgeTrackerPollMs);
      commerceReconciler.start(deps.config.workers.commerceReconcilePollMs);
      completionScreener.start(deps.config.screening.completionPollMs);
    },
    async stop() {
      // What writes deliveries stops first: a payment recorded during shutdown is handed to a
      // dispatcher that still takes it, and sent before the process exits.
      await Promise.all([
        occurrences.stop(),
        ...indexers.map((i) => i.stop()),
        ...recurringExecutors.map((e) => e.stop()),
        safeTracker.stop(),
        bridgeTracker.stop(),
        commerceReconciler.stop(),
        completionScreener.stop(),
      ]);
      await Promise.all([dispatcher.stop(), janitor.stop()]);
    },
  };
}

/**
 * One executor per EVM network that has a recurring payment proxy and a transport. The sandbox
 * network's is triggered by the sandbox relayer (the account its proxy grants the role at
 * deployment); every other network needs `RECURRING_RELAYER_KEY`, without which none runs
 * there, as the log says once.
 */
function createRecurringExecutors(
  deps: Parameters<typeof createWorkers>[0],
  wake: () => void,
): RecurringExecutor[] {
  const executors: RecurringExecutor[] = [];
  const keyless: string[] = [];
  for (const network of deps.chains.networks) {
    const id = network.id;
    if (network.kind !== 'evm' || !deps.chains.contracts(id).recurringPaymentProxy) continue;
    const configured = networkConfig(deps.config.networks, id);
    if (!configured?.rpcUrl && !deps.transportNetworks?.includes(id)) continue;
    const relayer = isSandboxNetwork(id)
      ? privateKeyToAccount(sandboxRelayer().privateKey)
      : deps.config.recurringRelayerKey && relayerAccount(deps.config.recurringRelayerKey);
    if (!relayer) {
      keyless.push(id);
      continue;
    }
    executors.push(
      createRecurringExecutor({
        db: deps.database.db,
        chains: deps.chains,
        client: deps.clients.evm(id),
        clock: deps.clock,
        logger: deps.logger.child({ worker: 'recurring-payouts' }),
        network: id,
        relayer,
        lock: createLeaderLock(deps.database, `payreq:recurring:${id}`),
        onRecorded: wake,
      }),
    );
  }
  if (keyless.length > 0) {
    deps.logger.info(
      { networks: keyless },
      `no RECURRING_RELAYER_KEY: recurring payouts are not executed on ${keyless.join(', ')} by this process`,
    );
  }
  return executors;
}
