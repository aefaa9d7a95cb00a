import { getAddress } from 'viem';
import { AppError } from '../../base/errors.ts';
import { isNative } from '../../chains/currencies.ts';
import { batchPaymentsAbi } from '../abis.ts';
import { type Payer, smartAccountOf } from '../payer.ts';
import { readPayerState } from '../payer-state.ts';
import type { PaymentLeg } from '../transactions.ts';
import { type BatchCalldata, batchCalldata } from './batch-calldata.ts';
import { type ConversionQuote, isConversionLeg, quoteCall } from './conversion.ts';
import type { CalldataDeps } from './shared.ts';

export const TRON_BATCH_MESSAGE =
  'Batch payments are not supported for TRON networks. Please submit individual payment requests.';
export const SAME_NETWORK_MESSAGE = 'All requests must be on the same network';
const SMART_ACCOUNT_BATCH_MESSAGE =
  'Smart-account payments (eoaWallet) pay links of one request; pay this one from the wallet that holds the funds, without eoaWallet';

/**
 * A batch's rule on networks: one network, and not Tron (whose batch contract only multicall
 * payouts use). A one-item "batch" is a single payment, so Tron is refused there only when
 * `tronAlone` says the caller asked for a batch in so many words.
 */
export function checkBatchNetworks(
  networks: readonly string[],
  options: { tronAlone?: boolean } = {},
): void {
  if ((networks.length > 1 || options.tronAlone) && networks.includes('tron')) {
    throw new AppError('tron_batch_not_supported', TRON_BATCH_MESSAGE);
  }
  if (new Set(networks).size > 1) throw new AppError('mixed_networks', SAME_NETWORK_MESSAGE);
}

/**
 * Calldata for several requests on one EVM network (Variant B): an approval of the batch
 * contract per token whose allowance is short, then one `batchPayments` call on
 * BatchConversionPayments (`batchCalldata` says how it is encoded). Plain requests and fiat
 * requests paid at the on-chain rate mix freely. Everything the chain is asked (the payer's
 * balances and allowances, the base fee, the contract's batch fee, and the rate of every
 * conversion, `getConversion` as a single conversion reads it) comes in one `eth_call` round
 * trip; without a wallet, only the batch fee and the rates, and nothing at all for a batch
 * without conversions. Each request still emits its own proxy events, so detection is the same
 * as for single payments.
 */
export async function buildBatchCalldata(
  deps: CalldataDeps,
  legs: readonly PaymentLeg[],
  payer: Payer,
): Promise<BatchCalldata> {
  const [first] = legs;
  if (!first) throw new Error('a batch needs at least one request');
  // Variant B has no place for the owner EOA's approval (smart-account.ts).
  if (smartAccountOf(payer)) {
    throw new AppError('smart_account_unsupported', SMART_ACCOUNT_BATCH_MESSAGE);
  }
  const network = first.network;
  if (legs.some((leg) => leg.network.id !== network.id)) {
    throw new AppError('mixed_networks', SAME_NETWORK_MESSAGE);
  }
  const contracts = deps.chains.contracts(network.id);
  if (network.kind !== 'evm' || !contracts.batchPayments || !contracts.multicall3) {
    throw new AppError('batch_not_supported', `Batch payments are not supported on ${network.id}`);
  }
  const batch = getAddress(contracts.batchPayments);
  const multicall3 = getAddress(contracts.multicall3);
  // Built before any read, so a missing route or rates contract is a 400 without a round trip.
  const quoteCalls = legs.map((leg) => (isConversionLeg(leg) ? quoteCall(deps, leg) : null));
  const batchFeeCall = { address: batch, abi: batchPaymentsAbi, functionName: 'batchFee' };
  const extra = [batchFeeCall, ...quoteCalls.filter((call) => call !== null)];
  const tokens = [
    ...new Set(
      legs.filter((leg) => !isNative(leg.currency)).map((leg) => getAddress(leg.currency.address)),
    ),
  ].map((token) => ({ token, spender: batch }));

  const owner = payer.wallet ? getAddress(payer.wallet) : null;
  const funder = payer.eoaWallet ? getAddress(payer.eoaWallet) : owner;
  const reads = async () => {
    if (!owner || !funder) {
      // A batch of plain requests without a wallet reads nothing (its batch fee taken as 0).
      if (extra.length === 1) return { state: null, results: [] };
      return deps.clients.read(network.id, async (client) => ({
        state: null,
        results: (await client.multicall({
          contracts: extra,
          allowFailure: false,
          multicallAddress: multicall3,
        })) as unknown[],
      }));
    }
    return deps.clients.read(network.id, async (client) => {
      const read = await readPayerState(client, multicall3, { funder, owner, tokens, extra });
      return { state: read, results: read.extra };
    });
  };
  const { state, results } = await reads();
  const [batchFeeBps, ...answers] = results;
  let next = 0;
  const quotes = quoteCalls.map((call): ConversionQuote | null => {
    if (!call) return null;
    const [converted, rateTimestamp] = answers[next++] as [bigint, bigint];
    return { converted, rateTimestamp };
  });
  return batchCalldata(deps, legs, batch, {
    batchFeeBps: BigInt((batchFeeBps as number | undefined) ?? 0),
    quotes,
    state,
    payer: owner,
  });
}
