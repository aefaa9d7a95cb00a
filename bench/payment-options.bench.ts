// The paymentOptions read (GET /v2/secure-payments/{token}?wallet=) over six chains, against
// the same read on one chain: one Multicall3 call per chain, the chains at once, so six chains
// should cost about what one does. Each side is measured in alternate rounds of the same run.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Address, getAddress } from 'viem';
import { createChainClients } from '../src/chains/clients.ts';
import type { Currency } from '../src/chains/currencies.ts';
import {
  type Network,
  type NetworkId,
  networkEnvSuffix,
  type PaymentNetworkId,
} from '../src/chains/networks.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import { parseConfig } from '../src/config/config.ts';
import {
  createPaymentOptionsReader,
  type PaymentOptionsReader,
} from '../src/crosschain/payment-options.ts';
import { serveJsonRpc } from '../src/sandbox/rpc-server.ts';
import { type StandIn, standIn } from '../test/chain.ts';
import { type BenchRow, report } from './report.ts';

const NETWORKS = ['base', 'arbitrum-one', 'optimism', 'mainnet', 'matic', 'bsc'] as const;
/**
 * The round trip each JSON-RPC call takes over HTTP: a provider near the server answers an
 * `eth_call` in tens of milliseconds; a local chain in microseconds, which would leave only our
 * CPU to measure (the second row does that).
 */
const RPC_LATENCY_MS = 20;
/** Reads per round, each side. */
const READS = { http: 10, local: 40 } as const;
const ROUNDS = 15;
const WARM_UP_ROUNDS = 2;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const started: StandIn[] = [];
for (const network of NETWORKS) started.push(await standIn(network, { walletCount: 2 }));
const served = await Promise.all(
  started.map((s) =>
    serveJsonRpc({
      request: async (args) => {
        await sleep(RPC_LATENCY_MS);
        return s.chain.provider.request(args);
      },
    }),
  ),
);
const env = Object.assign({}, ...started.map((s) => s.env)) as Record<string, string>;
const rpcUrls = Object.fromEntries(
  NETWORKS.map((network, i) => [`RPC_URL_${networkEnvSuffix(network)}`, served[i]?.url ?? '']),
);
const transports = Object.assign({}, ...started.map((s) => s.transports)) as StandIn['transports'];

/** A reader that reaches `networks` only (the others have no RPC), as a server so configured. */
function readerOver(networks: readonly PaymentNetworkId[], over: 'http' | 'local') {
  const reached = new Set<string>(networks);
  const config = parseConfig({
    DATA_DIR: '/tmp/payreq-bench',
    SANDBOX: 'false',
    ...env,
    ...(over === 'http' &&
      Object.fromEntries(
        NETWORKS.filter((n) => reached.has(n)).map((n) => [
          `RPC_URL_${networkEnvSuffix(n)}`,
          rpcUrls[`RPC_URL_${networkEnvSuffix(n)}`] ?? '',
        ]),
      )),
  });
  const chains = createChainRegistry(config);
  const clients = createChainClients({
    config,
    chains,
    ...(over === 'local' && {
      transports: Object.fromEntries(
        networks.map((n): [NetworkId, StandIn['transports'][NetworkId]] => [n, transports[n]]),
      ),
    }),
  });
  return { chains, reader: createPaymentOptionsReader({ chains, clients, timeoutMs: 5_000 }) };
}

const { chains } = readerOver(['base'], 'local');
const usdc = chains.currency('USDC-base') as Currency;
const needs = [{ network: chains.network('base') as Network, currency: usdc, amount: 25_000_000n }];
// A wallet that holds every test token on every stand-in.
const payer = getAddress(started[0]?.chain.wallets[1]?.address ?? '0x') as Address;

/** How many balances an answer holds, once it is checked to cover `chainCount` chains. */
async function balances(reader: PaymentOptionsReader, chainCount: number): Promise<number> {
  const answer = await reader.read(needs, payer);
  if (Object.keys(answer.options).length !== chainCount || answer.leftOut.length > 0) {
    throw new Error(`${chainCount} chains expected: ${JSON.stringify(answer)}`);
  }
  return Object.values(answer.options).reduce((sum, t) => sum + Object.keys(t).length, 0);
}

async function round(reader: PaymentOptionsReader, reads: number): Promise<number> {
  const at = performance.now();
  for (let i = 0; i < reads; i++) await reader.read(needs, payer);
  return (performance.now() - at) / reads;
}

async function compare(over: 'http' | 'local'): Promise<BenchRow> {
  const six = readerOver(NETWORKS, over).reader;
  const one = readerOver(['base'], over).reader;
  const [sixCount, oneCount] = [await balances(six, 6), await balances(one, 1)];
  const sixTimes: number[] = [];
  const oneTimes: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < WARM_UP_ROUNDS + ROUNDS; r++) {
    // Alternated, so that a drift of the machine's speed falls on both sides alike.
    const baseline = await round(one, READS[over]);
    const measured = await round(six, READS[over]);
    if (r < WARM_UP_ROUNDS) continue;
    oneTimes.push(baseline);
    sixTimes.push(measured);
    ratios.push(measured / baseline);
  }
  const http = over === 'http';
  return {
    bench: 'payment-options',
    name: `paymentOptions, 6 chains, ${sixCount} balances${http ? `, RPC ${RPC_LATENCY_MS} ms` : ', in-process chains'}`,
    value: median(sixTimes),
    unit: 'ms',
    baseline: {
      name: `the same read on one chain's Multicall3 (${oneCount} balances)${http ? ', same RPC' : ''}`,
      value: median(oneTimes),
    },
    pairedRatio: median(ratios),
    ...(http && { goal: { op: '<=' as const, limit: 1.5 } }),
    note: http
      ? `over HTTP (the production transport) to the local chains, each call answered after ${RPC_LATENCY_MS} ms; median of ${ROUNDS} rounds' own ratios`
      : 'no latency at all: only our CPU per chain and the local EVMs’ is left (no goal: on two cores six chains cannot cost what one does)',
  };
}

try {
  report('payment-options', [await compare('http'), await compare('local')]);
} finally {
  for (const s of served) await s.close();
  for (const s of started) await s.chain.close();
}
