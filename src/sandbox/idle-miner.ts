import type { Logger } from 'pino';
import { createPoller, type Poller } from '../base/poller.ts';
import type { Eip1193Provider } from './chain.ts';

/** With no block for this long, the sandbox chain's owner mines an empty one, in ms. */
export const IDLE_BLOCK_MS = 2_000;
/** The head is looked at this many times per idle period: a block comes at most this late. */
const CHECKS_PER_IDLE = 4;

/**
 * Mines a block on a chain that has had none for `idleMs`. The chain mines only when sent a
 * transaction, and its time moves only with its blocks: without this, a recurring date or an
 * expiry on the sandbox would wait for someone to send one. Run by the process that owns the
 * chain, nowhere else.
 */
export function createIdleMiner(deps: {
  provider: Eip1193Provider;
  logger: Logger;
  idleMs?: number;
}): Poller {
  const idleMs = deps.idleMs ?? IDLE_BLOCK_MS;
  let head: string | null = null;
  /** When this miner first saw `head`, on a monotonic clock. */
  let seenAt = 0;

  const blockNumber = async () =>
    String(await deps.provider.request({ method: 'eth_blockNumber' }));

  return createPoller({
    logger: deps.logger,
    pollMs: Math.max(1, Math.floor(idleMs / CHECKS_PER_IDLE)),
    round: async () => {
      const current = await blockNumber();
      if (current !== head) {
        head = current;
        seenAt = performance.now();
        return false;
      }
      if (performance.now() - seenAt < idleMs) return false;
      await deps.provider.request({ method: 'evm_mine' });
      head = await blockNumber();
      seenAt = performance.now();
      return false;
    },
    failure: { level: 'warn', message: 'mining an idle sandbox block failed' },
  });
}
