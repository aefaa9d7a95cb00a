import { hexToNumber, isHex } from 'viem';
import { postJson } from './cli-http.ts';

/**
 * `payreq sandbox clock [advance <duration>]`: reads, or moves forward, the time of the running
 * server's sandbox chain over its JSON-RPC (`/sandbox/rpc`), so that an expiry (a commerce
 * authorization's, a link's) can be seen to pass without waiting for it. Advancing is
 * `evm_increaseTime` then `evm_mine`: the shift stays in the chain's clock, so every later
 * block, the idle miner's included, keeps it; the miner only ever mines at the chain's own
 * time, so the two never pull it different ways.
 */

const UNITS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;
/** The longest advance taken at once: ten years. */
const MAX_ADVANCE_SECONDS = 10 * 365 * 86_400;

/** `45s`, `90m`, `2h`, `7d` or plain seconds, as seconds; null when it is none of these. */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text);
  if (!match) return null;
  const unit = (match[2] || 's') as keyof typeof UNITS;
  const seconds = Number(match[1]) * UNITS[unit];
  return seconds > 0 && seconds <= MAX_ADVANCE_SECONDS ? seconds : null;
}

interface ChainTime {
  readonly block: number;
  /** Unix seconds of the latest block. */
  readonly timestamp: number;
  readonly time: string;
}

export interface ClockResult {
  readonly now: ChainTime;
  /** Only when advanced: the time before, and by how much the latest block's time moved. */
  readonly before?: ChainTime;
  readonly moved?: number;
}

export async function sandboxClock(options: {
  baseUrl: string;
  advanceSeconds?: number | undefined;
}): Promise<ClockResult> {
  const rpcUrl = `${options.baseUrl}/sandbox/rpc`;
  if (options.advanceSeconds === undefined) return { now: await latest(rpcUrl) };
  const before = await latest(rpcUrl);
  await rpc(rpcUrl, 'evm_increaseTime', [options.advanceSeconds]);
  await rpc(rpcUrl, 'evm_mine', []);
  const now = await latest(rpcUrl);
  return { before, now, moved: now.timestamp - before.timestamp };
}

async function latest(rpcUrl: string): Promise<ChainTime> {
  const block = await rpc(rpcUrl, 'eth_getBlockByNumber', ['latest', false]);
  const { number, timestamp } = (block ?? {}) as { number?: unknown; timestamp?: unknown };
  if (!isHex(number) || !isHex(timestamp)) {
    throw new Error(`the sandbox JSON-RPC at ${rpcUrl} answered no latest block`);
  }
  const seconds = hexToNumber(timestamp);
  return {
    block: hexToNumber(number),
    timestamp: seconds,
    time: new Date(seconds * 1000).toISOString(),
  };
}

async function rpc(rpcUrl: string, method: string, params: readonly unknown[]): Promise<unknown> {
  const answer = await postJson<{
    result?: unknown;
    error?: { message?: string };
    message?: string;
  }>(rpcUrl, {}, { jsonrpc: '2.0', id: 1, method, params });
  if (answer.error) {
    throw new Error(
      `the sandbox JSON-RPC at ${rpcUrl} refused ${method}: ${answer.error.message ?? 'no reason given'}`,
    );
  }
  return answer.result;
}
