import type { Logger } from 'pino';
import type { ChainClients } from './chains/clients.ts';
import type { NetworkId, PaymentNetworkId } from './chains/networks.ts';
import type { ChainRegistry } from './chains/registry.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { DatabaseHandle } from './db/client.ts';
import { createEvmSource } from './detection/evm-source.ts';
import { createIndexer, type Indexer } from './detection/indexer.ts';
import { createLeaderLock } from './detection/leader-lock.ts';
import { createTronGridClient } from './detection/tron-grid.ts';
import { createTronBlockSource } from './detection/tron-source.ts';
import { createJanitor } from './janitor.ts';
import { createOccurrenceGenerator, type OccurrenceGenerator } from './requests/occurrences.ts';
import { createSettlement } from './settlement.ts';
import { createDispatcher, type Dispatcher } from './webhooks/dispatcher.ts';

export interface Workers {
  readonly dispatcher: Dispatcher;
  readonly indexers: readonly Indexer[];
  readonly occurrences: OccurrenceGenerator;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The background work of a payreq process: one indexer per network it can read (an RPC is
 * configured, or the sandbox runs), the webhook dispatcher, the generator of recurring
 * requests' occurrences, and the janitor that deletes expired challenges, nonces and sessions.
 * With Postgres, several processes may run them: each network is indexed by whichever process
 * holds its lock, and dispatchers and generators share their work through row locks.
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
}): Workers {
  const db = deps.database.db;
  const dispatcher = createDispatcher({
    db,
    clock: deps.clock,
    logger: deps.logger.child({ worker: 'webhooks' }),
    secretBox: deps.secretBox,
    config: deps.config.webhooks,
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
  const sink = createSettlement({ chains: deps.chains });
  const indexers: Indexer[] = [];
  for (const network of deps.chains.networks) {
    const id = network.id as NetworkId;
    const configured = deps.config.networks[id as PaymentNetworkId];
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
        sink,
        onRecorded: () => dispatcher.wake(),
      }),
    );
  }
  return {
    dispatcher,
    indexers,
    occurrences,
    start() {
      dispatcher.start(deps.config.workers.dispatcherPollMs);
      janitor.start();
      occurrences.start();
      for (const indexer of indexers) indexer.start(deps.config.workers.indexerPollMs);
    },
    async stop() {
      await Promise.all([
        dispatcher.stop(),
        janitor.stop(),
        occurrences.stop(),
        ...indexers.map((i) => i.stop()),
      ]);
    },
  };
}
