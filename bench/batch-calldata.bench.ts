// npm run bench: calldata for a batch payout of 200 requests (approvals of the batch contract
// and one batchPayments transaction, the payer's balances and allowances read in one eth_call)
// against its baseline in the same run: building the same 200 payments one by one, each as a
// single payment's calldata with its own read, as a client without batches would have to.
// The chain is a local EVM with the real Request contracts standing in for Base, in process.
import { createChainClients } from '../src/chains/clients.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import { parseConfig } from '../src/config/config.ts';
import { buildBatchCalldata } from '../src/payments/calldata/batch.ts';
import { buildSingleCalldata } from '../src/payments/calldata/single.ts';
import type { PaymentLeg } from '../src/payments/transactions.ts';
import { accountOf, standIn } from '../test/chain.ts';
import { type BenchRow, report } from './report.ts';

const ITEMS = 200;
const RUNS = 9;
const WARM_UP = 2;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const local = await standIn('base', { walletCount: 4 });
const config = parseConfig({
  DATA_DIR: '/tmp/payreq-bench',
  SANDBOX: 'false',
  LOG_LEVEL: 'silent',
  ...local.env,
});
const chains = createChainRegistry(config);
const deps = {
  chains,
  clients: createChainClients({ config, chains, transports: local.transports }),
};
const network = chains.network('base');
if (!network) throw new Error('no base network');
const currencies = ['USDC-base', 'DAI-base', 'USDT-base', 'ETH-base'].map((id) => {
  const currency = chains.currency(id);
  if (!currency) throw new Error(id);
  return currency;
});
const legs: PaymentLeg[] = Array.from({ length: ITEMS }, (_, i) => ({
  requestId: i.toString(16).padStart(66, '0'),
  network,
  currency: currencies[i % currencies.length] ?? (currencies[0] as never),
  payee: accountOf(local.chain, 1 + (i % 3)).address,
  amount: BigInt(1_000 + i),
  paymentReference: i.toString(16).padStart(16, '0'),
  feeAmount: 0n,
  feeAddress: null,
}));
const payer = { wallet: accountOf(local.chain, 0).address };

async function timed(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + RUNS; i++) {
    const started = performance.now();
    await run();
    if (i >= WARM_UP) times.push(performance.now() - started);
  }
  return median(times);
}

const oneByOne = await timed(async () => {
  for (const leg of legs) await buildSingleCalldata(deps, leg, payer);
});
const batch = await timed(() => buildBatchCalldata(deps, legs, payer));
const rows: BenchRow[] = [
  {
    bench: 'batch-calldata',
    name: `batch payout calldata for ${ITEMS} requests (median of ${RUNS})`,
    value: batch,
    unit: 'ms',
    baseline: { name: 'single calldata one by one, one read each', value: oneByOne },
  },
];
report('batch-calldata', rows);
await local.chain.close();
