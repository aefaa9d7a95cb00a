import type { Logger } from 'pino';
import { type Address, formatEther, type PublicClient } from 'viem';
import type { Clock } from '../../base/clock.ts';

/**
 * Whether the relayer can pay for a trigger: its native balance against what one trigger may
 * cost at the chain's current fees. Checked before every round; a relayer too poor to pay is a
 * clear log line (repeated while it lasts) and a detail of `/readyz`, never a silent stall.
 */

/** Gas one trigger is budgeted (about 110,000 used on the local chain), with room to spare. */
const TRIGGER_GAS_BUDGET = 250_000n;
/** While the balance stays too low, the warning is repeated this often. */
const LOW_BALANCE_LOG_EVERY_MS = 10 * 60_000;

export interface RelayerHealth {
  readonly network: string;
  /** The relayer's address (public; its key never leaves the signer). */
  readonly address: Address;
  /** `unknown`: the last check could not read the chain. */
  readonly status: 'ok' | 'low_balance' | 'unknown';
  /** Native currency, decimal. Null when unknown. */
  readonly balance: string | null;
  /** What one trigger may cost at the last fees read, decimal. Null when unknown. */
  readonly minimumBalance: string | null;
  readonly checkedAt: string;
}

export interface RelayerHealthTracker {
  /** Reads balance and fees; true when the relayer can pay for a trigger. */
  check(client: PublicClient): Promise<boolean>;
  /** Records a balance found short at send time (`cost` being the signed trigger's most). */
  short(balance: bigint, cost: bigint): void;
  current(): RelayerHealth | null;
}

export function createRelayerHealth(deps: {
  network: string;
  address: Address;
  clock: Clock;
  logger: Logger;
}): RelayerHealthTracker {
  let health: RelayerHealth | null = null;
  let lastWarnedAt = Number.NEGATIVE_INFINITY;

  const record = (balance: bigint, minimum: bigint) => {
    const now = deps.clock.now();
    const low = balance < minimum;
    const wasLow = health?.status === 'low_balance';
    health = {
      network: deps.network,
      address: deps.address,
      status: low ? 'low_balance' : 'ok',
      balance: formatEther(balance),
      minimumBalance: formatEther(minimum),
      checkedAt: now.toISOString(),
    };
    const fields = {
      network: deps.network,
      relayer: deps.address,
      balance: health.balance,
      minimumBalance: health.minimumBalance,
    };
    if (low && (!wasLow || now.getTime() - lastWarnedAt >= LOW_BALANCE_LOG_EVERY_MS)) {
      lastWarnedAt = now.getTime();
      deps.logger.error(
        fields,
        `recurring payouts on ${deps.network} are waiting: the relayer ${deps.address} holds ${health.balance}, too little to pay gas for a trigger (${health.minimumBalance}); fund it`,
      );
    } else if (!low && wasLow) {
      deps.logger.info(fields, `the recurring relayer on ${deps.network} can pay gas again`);
    }
    return !low;
  };

  return {
    async check(client) {
      try {
        const [balance, perGas] = await Promise.all([
          client.getBalance({ address: deps.address }),
          // A chain without EIP-1559 fees has a gas price.
          client
            .estimateFeesPerGas()
            .then((fees) => fees.maxFeePerGas)
            .catch(() => client.getGasPrice()),
        ]);
        return record(balance, TRIGGER_GAS_BUDGET * perGas);
      } catch (error) {
        health = {
          network: deps.network,
          address: deps.address,
          status: 'unknown',
          balance: null,
          minimumBalance: null,
          checkedAt: deps.clock.now().toISOString(),
        };
        deps.logger.warn(
          { err: error, network: deps.network },
          'could not read the recurring relayer’s balance; retrying later',
        );
        return false;
      }
    },
    short(balance, cost) {
      record(balance, cost);
    },
    current: () => health,
  };
}
