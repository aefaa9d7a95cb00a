import { Type } from 'typebox';
import { AppError } from '../../base/errors.ts';
import type { App } from '../../http/types.ts';
import type { Eip1193Provider } from '../chain.ts';

/**
 * `GET /sandbox/tx/{txHash}`: the sandbox's block explorer, one transaction as JSON (its sender,
 * target, value, block, status and logs), read from the chain. The sandbox network's explorer
 * template points here, so a webhook's `explorer` and the pay page's link are URLs that answer
 * on every network, the local one included. Kept out of the OpenAPI document, like the RPC.
 */

const TxHashParams = Type.Object({ txHash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }) });

interface RpcTransaction {
  readonly hash: string;
  readonly from: string;
  readonly to: string | null;
  readonly value: string;
  readonly blockNumber: string | null;
  readonly blockHash: string | null;
  readonly input: string;
}

interface RpcReceipt {
  readonly status: string;
  readonly gasUsed: string;
  readonly contractAddress: string | null;
  readonly logs: readonly { address: string; topics: string[]; data: string; logIndex: string }[];
}

export function registerSandboxTransaction(
  app: App,
  deps: { provider: Eip1193Provider; network?: string },
): void {
  const network = deps.network ?? 'sandbox';
  app.get(
    `/${network}/tx/:txHash`,
    { schema: { hide: true, params: TxHashParams } },
    async (request) => {
      const hash = request.params.txHash.toLowerCase();
      // The provider's answers are the node's JSON-RPC results, typed by the method asked.
      const tx = (await deps.provider.request({
        method: 'eth_getTransactionByHash',
        params: [hash],
      })) as RpcTransaction | null;
      if (tx === null) {
        throw new AppError(
          'transaction_not_found',
          `Transaction not found on the ${network} chain`,
        );
      }
      const receipt = (await deps.provider.request({
        method: 'eth_getTransactionReceipt',
        params: [hash],
      })) as RpcReceipt | null;
      return {
        network,
        hash: tx.hash,
        status: receipt === null ? 'pending' : receipt.status === '0x1' ? 'success' : 'reverted',
        blockNumber: tx.blockNumber === null ? null : Number(BigInt(tx.blockNumber)),
        blockHash: tx.blockHash,
        from: tx.from,
        to: tx.to,
        value: BigInt(tx.value).toString(),
        input: tx.input,
        gasUsed: receipt === null ? null : BigInt(receipt.gasUsed).toString(),
        contractAddress: receipt?.contractAddress ?? null,
        logs: (receipt?.logs ?? []).map((log) => ({
          logIndex: Number(BigInt(log.logIndex)),
          address: log.address,
          topics: log.topics,
          data: log.data,
        })),
      };
    },
  );
}
