import type { Logger } from 'pino';
import type { PrivateKeyAccount, PublicClient } from 'viem';
import type { Clock } from '../../base/clock.ts';
import { createPoller } from '../../base/poller.ts';
import type { NetworkId } from '../../chains/networks.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import type { LeaderLock } from '../../db/leader-lock.ts';
import { claimKey, createClaimExecutor, type Outcome } from './claim-executor.ts';
import { CLAIM_LEASE_MS, claimDue, releaseClaim } from './executions.ts';
import { createRelayerHealth, type RelayerHealth } from './relayer-health.ts';

/**
 * The executor of recurring payouts on one network: it claims each due index of each active
 * schedule and pays it (claim-executor.ts), one claim at a time.
 *
 * Nonces: one executor per network sends for the relayer at a time, across processes, by
 * holding the network's leader lock (`payreq:recurring:<network>`, as the indexers do); it
 * sends one trigger at a time and takes each nonce from the chain's pending count. Two
 * processes never sign with the same nonce, and a nonce left by a dropped transaction is
 * simply reused.
 */

/** Claims in one run at most; a run that pays as many is followed by the next at once. */
const MAX_CLAIMS_PER_RUN = 100;

interface RunResult {
  /** False when another process holds this network's executor lock. */
  readonly leader: boolean;
  readonly outcomes: readonly Outcome[];
}

export interface RecurringExecutor {
  readonly network: NetworkId;
  runOnce(): Promise<RunResult>;
  start(pollMs: number): void;
  stop(): Promise<void>;
  /** The relayer's last balance check; null before the first. */
  health(): RelayerHealth | null;
}

export function createRecurringExecutor(deps: {
  db: Database;
  chains: ChainRegistry;
  client: PublicClient;
  clock: Clock;
  logger: Logger;
  network: NetworkId;
  relayer: PrivateKeyAccount;
  lock: LeaderLock;
  /** Called after a run that queued deliveries (wakes the webhook dispatcher). */
  onRecorded?: () => void;
  leaseMs?: number;
  receiptTimeoutMs?: number;
}): RecurringExecutor {
  const { db, client } = deps;
  const log = deps.logger.child({ network: deps.network });
  const leaseMs = deps.leaseMs ?? CLAIM_LEASE_MS;
  const relayerHealth = createRelayerHealth({
    network: deps.network,
    address: deps.relayer.address,
    clock: deps.clock,
    logger: log,
  });
  const execute = createClaimExecutor({
    db,
    chains: deps.chains,
    client,
    clock: deps.clock,
    logger: log,
    relayer: deps.relayer,
    relayerHealth,
    ...(deps.receiptTimeoutMs !== undefined && { receiptTimeoutMs: deps.receiptTimeoutMs }),
  });

  /** One run, the lock held. */
  const run = async (): Promise<RunResult> => {
    if (!(await relayerHealth.check(client))) return { leader: true, outcomes: [] };
    const outcomes: Outcome[] = [];
    for (let n = 0; n < MAX_CLAIMS_PER_RUN; n++) {
      const [claim] = await claimDue(
        { db, chains: deps.chains },
        { now: deps.clock.now(), limit: 1, leaseMs, networks: [deps.network] },
      );
      if (!claim) break;
      let result: Outcome;
      try {
        result = await execute(claim);
      } catch (error) {
        // The RPC failed, or the database: nothing was decided. Before a send the index is
        // given back; after one, the recorded hash waits for the next lease.
        log.error(
          { err: error, scheduleId: claim.schedule.id, index: claim.index },
          'recurring payment attempt failed; retrying later',
        );
        await releaseClaim(db, claimKey(claim)).catch(() => false);
        result = { scheduleId: claim.schedule.id, index: claim.index, kind: 'retry', txHash: null };
      }
      outcomes.push(result);
      // What holds one schedule back (the chain's clock, the RPC, the relayer) holds the rest.
      if (result.kind === 'retry') break;
    }
    if (outcomes.some((o) => o.kind === 'failed')) deps.onRecorded?.();
    return { leader: true, outcomes };
  };

  const poller = createPoller({
    logger: log,
    lock: deps.lock,
    round: async () => (await run()).outcomes.length >= MAX_CLAIMS_PER_RUN,
    failure: { level: 'error', message: 'recurring payout run failed; retrying later' },
  });

  return {
    network: deps.network,
    runOnce: async () => ((await deps.lock.acquire()) ? run() : { leader: false, outcomes: [] }),
    start: (pollMs) => poller.start(pollMs),
    stop: () => poller.stop(),
    health: () => relayerHealth.current(),
  };
}
