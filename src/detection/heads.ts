import type { PublicClient } from 'viem';

/**
 * Following a node's new blocks (`eth_subscribe newHeads`), where its transport can subscribe:
 * a WebSocket RPC, or a chain in process (src/chains/provider-transport.ts). An HTTP RPC
 * cannot, and is polled.
 */

/** A block header, as a new-heads notification carries it. */
interface Head {
  readonly number: bigint;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: Date;
}

/** Told of each new head, and once when the subscription breaks. */
export interface HeadListener {
  onHead(head: Head): void;
  onDropped(error: unknown): void;
}

/** What a transport that can subscribe offers (viem's WebSocket transport, ours for providers). */
interface Subscriber {
  subscribe(args: {
    params: ['newHeads'];
    onData: (data: { result?: unknown }) => void;
    onError?: (error: unknown) => void;
  }): Promise<{ unsubscribe(): Promise<unknown> }>;
}

const canSubscribe = (transport: object): transport is Subscriber =>
  'subscribe' in transport && typeof transport.subscribe === 'function';

/**
 * Subscribes to the client's new heads; null when its transport cannot subscribe. Returns what
 * stops the subscription. A notification that is not a header counts as the subscription
 * breaking: the caller polls instead, as it does when the socket closes.
 */
export function followHeads(client: PublicClient, listener: HeadListener): (() => void) | null {
  const transport = client.transport;
  if (!canSubscribe(transport)) return null;
  let active = true;
  let unsubscribe: (() => Promise<unknown>) | null = null;
  const dropped = (error: unknown) => {
    if (!active) return;
    active = false;
    listener.onDropped(error);
  };
  transport
    .subscribe({
      params: ['newHeads'],
      onData: (data) => {
        if (!active) return;
        const head = headOf(data.result);
        if (head) listener.onHead(head);
        else dropped(new Error('the node sent a new head that is not a block header'));
      },
      onError: dropped,
    })
    .then((subscription) => {
      unsubscribe = subscription.unsubscribe;
      if (!active) void unsubscribe().catch(() => {});
    }, dropped);
  return () => {
    active = false;
    void unsubscribe?.().catch(() => {});
  };
}

const HEX = /^0x[0-9a-f]+$/i;

function headOf(result: unknown): Head | null {
  if (typeof result !== 'object' || result === null) return null;
  const { number, hash, parentHash, timestamp } = result as Record<string, unknown>;
  if (
    typeof number !== 'string' ||
    typeof hash !== 'string' ||
    typeof parentHash !== 'string' ||
    typeof timestamp !== 'string' ||
    ![number, hash, parentHash, timestamp].every((value) => HEX.test(value))
  )
    return null;
  return {
    number: BigInt(number),
    hash: hash.toLowerCase(),
    parentHash: parentHash.toLowerCase(),
    timestamp: new Date(Number(BigInt(timestamp)) * 1000),
  };
}

/** Headers kept, newest last: more than any confirmation depth the indexer waits for. */
const KEPT_HEADS = 256;

/**
 * The chain as the newest head the node sent says it is: a block's hash is known here only
 * when every header from the newest down to it links by parent hash, so a header of a fork the
 * node has left is never answered from (the caller asks the node). Blocks' times are known by
 * hash, which no fork can change.
 */
export interface HeadChain {
  add(head: Head): void;
  /** Forgets everything (the subscription broke: what was heard may be stale). */
  clear(): void;
  hashAt(number: bigint): string | null;
  timeOf(hash: string): Date | null;
}

export function createHeadChain(): HeadChain {
  const byNumber = new Map<bigint, Head>();
  const times = new Map<string, Date>();
  let newest: Head | null = null;
  return {
    add(head) {
      newest = head;
      byNumber.set(head.number, head);
      times.set(head.hash, head.timestamp);
      // Map order is insertion order: the first are the oldest heard.
      for (const [number, old] of byNumber) {
        if (byNumber.size <= KEPT_HEADS) break;
        byNumber.delete(number);
        times.delete(old.hash);
      }
    },
    clear() {
      byNumber.clear();
      times.clear();
      newest = null;
    },
    hashAt(number) {
      let current = newest;
      while (current && current.number >= number) {
        if (current.number === number) return current.hash;
        if (current.number - 1n === number) return current.parentHash;
        const parent = byNumber.get(current.number - 1n);
        current = parent?.hash === current.parentHash ? parent : null;
      }
      return null;
    },
    timeOf: (hash) => times.get(hash.toLowerCase()) ?? null,
  };
}
