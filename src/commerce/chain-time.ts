import { bounded } from '../base/bounded.ts';
import type { Clock } from '../base/clock.ts';
import type { ChainClients } from '../chains/clients.ts';
import type { NetworkId } from '../chains/networks.ts';

/**
 * The escrow judges its expiries by its chain's block time, so the commerce operations do too:
 * the server's clock, moved forward to the chain's latest block time when that is ahead (a
 * sandbox clock moved with `payreq sandbox clock advance`; a real chain's is within seconds of
 * ours, and a chain behind us only makes a check refuse a little early). The chain is asked at
 * most once per network every `ttlMs`; one that does not answer within `timeoutMs` keeps the
 * lead it last read, or leaves the server's clock when it never answered.
 */
export interface ChainTime {
  now(network: NetworkId): Promise<Date>;
}

export function createChainTime(
  deps: { readonly clients: ChainClients; readonly clock: Clock },
  options: { readonly ttlMs?: number; readonly timeoutMs?: number } = {},
): ChainTime {
  const ttlMs = options.ttlMs ?? 2_000;
  const timeoutMs = options.timeoutMs ?? 2_000;
  /** Per network: how far the chain is ahead of our clock, and when that was read. */
  const ahead = new Map<NetworkId, { readonly ms: number; readonly readAt: number }>();

  /** How far ahead the chain is; when it does not answer, what it last said (else 0). */
  const read = async (network: NetworkId): Promise<number> => {
    // A network with no RPC here throws at once: the server's clock, as for a silent one.
    const latest = Promise.resolve().then(() =>
      deps.clients.evm(network).getBlock({ blockTag: 'latest' }),
    );
    const block = await bounded(latest, timeoutMs);
    // viem gives a wrong-shaped answer no timestamp (typed a bigint all the same).
    const seconds: unknown = block.ok ? block.value.timestamp : undefined;
    if (typeof seconds === 'bigint') return Number(seconds) * 1000 - deps.clock.now().getTime();
    // A slow or garbled answer says nothing of the chain's clock: keep the lead it last had, so
    // a check judged by it does not fall back to the server's clock for a while.
    return ahead.get(network)?.ms ?? 0;
  };

  return {
    async now(network) {
      const at = deps.clock.now().getTime();
      let known = ahead.get(network);
      if (!known || at - known.readAt >= ttlMs) {
        known = { ms: await read(network), readAt: at };
        ahead.set(network, known);
      }
      return new Date(deps.clock.now().getTime() + Math.max(0, known.ms));
    },
  };
}
