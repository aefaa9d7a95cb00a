import type { EIP1193RequestFn } from 'viem';
import { requestCurrencyHash } from '../chains/currencies.ts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import { formatAmount, parseAmount } from '../payments/amounts.ts';
import { SANDBOX_AGGREGATORS } from './addresses.ts';
import { type Eip1193Provider, type LocalChain, sandboxCurrencyHash } from './chain.ts';
import { setSandboxRate } from './rates.ts';

/**
 * `sandbox_setRate`: moves one of the sandbox chain's mock Chainlink rates from any script,
 * with no code: `[{ "from": "EUR", "to": "USD", "rate": "1.10" }]` makes 1 EUR worth 1.10 USD
 * from the next block on. The pairs are the sandbox's feeds (addresses.ts), named as they are
 * priced: a token or ETH in USD, another fiat in USD. It changes the chain, so, like the node's
 * own state-changing methods, browser pages may not call it (json-rpc.ts).
 */

const SET_RATE_METHOD = 'sandbox_setRate';
/** Chainlink's answers, and so these rates, carry 8 decimals. */
const RATE_DECIMALS = 8;
const INVALID_PARAMS = -32602;

type FeedSymbol = (typeof SANDBOX_AGGREGATORS)[number]['input'];

export interface RateChange {
  readonly from: FeedSymbol;
  readonly to: 'USD';
  /** `to` per one `from`, 8 decimals. */
  readonly rate: bigint;
}

const PAIRS = SANDBOX_AGGREGATORS.map((feed) => `${feed.input}→${feed.output}`).join(', ');

function invalid(message: string): Error {
  return Object.assign(new Error(message), { code: INVALID_PARAMS });
}

/** `USDC`, `usdc` and `USDC-sandbox` all name the sandbox's USDC. */
function symbolOf(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 32) {
    throw invalid(`${field} must be a fiat code or a sandbox token symbol, such as EUR or USDC`);
  }
  return value.replace(/-sandbox$/i, '').toUpperCase();
}

/** Checks `sandbox_setRate`'s params: one object naming a sandbox feed and a positive rate. */
export function parseRateChange(params: unknown): RateChange {
  const [change, ...rest] = Array.isArray(params) ? params : [];
  if (typeof change !== 'object' || change === null || rest.length > 0) {
    throw invalid(`${SET_RATE_METHOD} takes one object: [{"from":"EUR","to":"USD","rate":"1.10"}]`);
  }
  const { from, to, rate, ...unknown } = change as Record<string, unknown>;
  const extra = Object.keys(unknown)[0];
  if (extra !== undefined) throw invalid(`${extra} is not a field of ${SET_RATE_METHOD}`);
  const input = symbolOf(from, 'from');
  const output = symbolOf(to, 'to');
  const feed = SANDBOX_AGGREGATORS.find((f) => f.input === input && f.output === output);
  if (!feed) {
    const reverse = SANDBOX_AGGREGATORS.find((f) => f.input === output && f.output === input);
    throw invalid(
      reverse
        ? `The sandbox's feed prices ${output} in ${input}: send from ${output} to ${input}, with the rate inverted`
        : `No sandbox feed from ${input} to ${output}; the feeds are ${PAIRS}`,
    );
  }
  const parsed = typeof rate === 'string' ? parseAmount(rate, RATE_DECIMALS) : null;
  if (!parsed?.ok) {
    throw invalid(
      `rate must be a decimal string greater than 0 with at most ${RATE_DECIMALS} decimals, such as "1.10" (${feed.output} per ${feed.input})`,
    );
  }
  return { from: feed.input, to: feed.output, rate: parsed.value };
}

/**
 * The chain's provider, answering `sandbox_setRate` itself (it deploys a feed and registers it:
 * rates.ts) and passing every other call on. Changes run one at a time: each sends from
 * the deployer's account, and two at once would race for its nonce.
 */
export function withSandboxMethods(chain: LocalChain): Eip1193Provider {
  const nativeHash = requestCurrencyHash('ETH', SANDBOX_NETWORK.native.hashValue);
  let queue: Promise<unknown> = Promise.resolve();
  const setRate = async (params: unknown) => {
    const change = parseRateChange(params);
    const run = queue.then(async () => {
      const feed = await setSandboxRate(
        chain,
        {
          input: sandboxCurrencyHash(chain.addresses, nativeHash, change.from),
          output: sandboxCurrencyHash(chain.addresses, nativeHash, change.to),
        },
        change.rate,
      );
      return {
        from: change.from,
        to: change.to,
        rate: formatAmount(change.rate, RATE_DECIMALS),
        feed,
      };
    });
    queue = run.catch(() => {});
    return run;
  };
  const request = ((args: { method: string; params?: unknown }) =>
    args.method === SET_RATE_METHOD
      ? setRate(args.params)
      : chain.provider.request(args)) as EIP1193RequestFn;
  return { request };
}
