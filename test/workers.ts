import pino from 'pino';
import type { PrivateKeyAccount, PublicClient } from 'viem';
import type { NetworkId } from '../src/chains/networks.ts';
import { commerceWatchers } from '../src/commerce/detect-events.ts';
import { createAggregator } from '../src/crosschain/aggregator.ts';
import type { DatabaseHandle } from '../src/db/client.ts';
import { createLeaderLock, type LeaderLock } from '../src/db/leader-lock.ts';
import { createEvmSource } from '../src/detection/evm-source.ts';
import { createIndexer, type Indexer } from '../src/detection/indexer.ts';
import {
  createRecurringExecutor,
  type RecurringExecutor,
} from '../src/payouts/recurring/executor.ts';
import { relayerAccount } from '../src/payouts/recurring/relayer.ts';
import { type BridgeTracker, createBridgeTracker } from '../src/secure-payments/bridge-tracker.ts';
import { createDispatcher, type Dispatcher } from '../src/webhooks/dispatcher.ts';
import { createSettlement } from '../src/workers/settlement.ts';
import type { TestApp } from './app.ts';

/**
 * The workers a payreq process runs, built on a test app's instances and driven by hand
 * (`tick`, `runOnce`) so a test decides when blocks are read and webhooks are sent.
 */

export function testIndexer(
  t: TestApp,
  options: {
    network?: NetworkId;
    confirmations: number;
    /** Another connection pool on the same database (a second process). */
    database?: DatabaseHandle;
    lock?: LeaderLock;
  },
): Indexer {
  const network = options.network ?? 'base';
  const database = options.database ?? t.database;
  const contracts = t.chains.contracts(network);
  return createIndexer({
    db: database.db,
    clock: t.clock,
    logger: t.app.log as never,
    chains: t.chains,
    network,
    source: createEvmSource({
      network,
      client: t.clients.evm(network),
      contracts,
    }),
    confirmations: options.confirmations,
    lock: options.lock ?? createLeaderLock(database, `test:indexer:${network}`),
    sink: createSettlement({ chains: t.chains }),
    watchers: commerceWatchers(t.chains, t.clients, network),
  });
}

export function testDispatcher(t: TestApp, database: DatabaseHandle = t.database): Dispatcher {
  return createDispatcher({
    db: database.db,
    clock: t.clock,
    logger: t.app.log as never,
    secretBox: t.secretBox,
    config: t.config.webhooks,
  });
}

/**
 * The bridge tracker of an app whose `LIFI_URL` names the fake aggregator, settling on the
 * aggregator's word only after ten minutes (detection sees the payments first in these tests).
 */
export function testBridgeTracker(t: TestApp): BridgeTracker {
  return createBridgeTracker({
    db: t.db,
    clock: t.clock,
    logger: pino({ level: 'silent' }),
    aggregator: createAggregator({ config: t.config.crosschain }),
    chains: t.chains,
    sink: createSettlement({ chains: t.chains }),
    settleAfterMs: 600_000,
  });
}

let executorLocks = 0;

/**
 * The recurring payout executor of one network, with the config's relayer unless another is
 * given; `client` replaces the network's (a transport that injects faults), `database` is
 * another pool (a second process). Each holds a leader lock of its own unless `lock` is given
 * (as a process whose predecessor died would): stop it to release the lock's connection.
 */
export function testRecurringExecutor(
  t: TestApp,
  options: {
    network?: NetworkId;
    relayer?: PrivateKeyAccount;
    client?: PublicClient;
    database?: DatabaseHandle;
    lock?: LeaderLock;
    receiptTimeoutMs?: number;
  } = {},
): RecurringExecutor {
  const network = options.network ?? 'base';
  const database = options.database ?? t.database;
  const key = t.config.recurringRelayerKey;
  const relayer = options.relayer ?? (key && relayerAccount(key));
  if (!relayer) throw new Error('no relayer: set RECURRING_RELAYER_KEY in the test app env');
  return createRecurringExecutor({
    db: database.db,
    chains: t.chains,
    client: options.client ?? t.clients.evm(network),
    clock: t.clock,
    logger: t.app.log as never,
    network,
    relayer,
    lock:
      options.lock ?? createLeaderLock(database, `test:recurring:${network}:${++executorLocks}`),
    ...(options.receiptTimeoutMs !== undefined && { receiptTimeoutMs: options.receiptTimeoutMs }),
  });
}
