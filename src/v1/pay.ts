import { type PayInput, type RequestCalldataDeps, requestCalldata } from '../requests/pay.ts';
import type { RequestRow } from '../requests/requests.ts';

/**
 * v1's calldata: v2's `/pay` for the request (no client ID fee: v1 takes only an API key),
 * with what the newer branch of 0.31.0's v1 answer requires on top: `chainType` on each
 * transaction and `routeType` in the metadata (`crosschain` for a route from another chain, as on v2).
 */
export async function v1Calldata(
  deps: RequestCalldataDeps,
  row: RequestRow,
  query: Pick<PayInput, 'wallet' | 'amount' | 'chain' | 'token'>,
) {
  const calldata = await requestCalldata(deps, row, query, null);
  const chainType: 'evm' | 'tron' =
    deps.chains.network(row.network)?.kind === 'tron' ? 'tron' : 'evm';
  return {
    transactions: calldata.transactions.map((tx) => ({ ...tx, chainType })),
    metadata: calldata.metadata,
  };
}
