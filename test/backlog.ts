import {
  type Account,
  createWalletClient,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  type Hex,
  maxUint256,
} from 'viem';
import { providerTransport } from '../src/chains/provider-transport.ts';
import { batchPaymentsAbi, erc20Abi } from '../src/payments/abis.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';

/**
 * A backlog of payment logs on a local chain: the batch contract's call that pays a link's
 * requests, as `/pay` built it, repeated so that each transaction pays them `perTx` times over
 * in all (one `TransferWithReferenceAndFee` of the ERC20FeeProxy each), until `logs` payments
 * are on chain. Every log pays one of the link's requests: each is a payment row to record.
 */
export async function payBacklog(
  chain: LocalChain,
  payer: Account,
  /** The transactions `/pay` answered for the link (the batch call among them). */
  transactions: readonly { readonly to: string; readonly data: string }[],
  options: { readonly logs: number; readonly perTx: number },
): Promise<{ readonly firstBlock: bigint; readonly lastBlock: bigint }> {
  const batch = transactions.find(
    (tx) => tx.to.toLowerCase() === chain.addresses.batchPayments.toLowerCase(),
  );
  if (!batch) throw new Error('the link is not paid with the batch contract');
  const call = decodeFunctionData({ abi: batchPaymentsAbi, data: batch.data as Hex });
  if (call.functionName !== 'batchPayments') throw new Error('not a batch payment');
  const [metaDetails, pathsToUsd, feeAddress] = call.args;
  const [meta] = metaDetails;
  if (!meta) throw new Error('an empty batch');
  const wallet = createWalletClient({
    account: payer,
    chain: chain.chain,
    transport: providerTransport(chain.provider),
  });
  const token = meta.requestDetails[0]?.path[0];
  if (!token) throw new Error('a batch detail with no token');
  await chain.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({
      address: getAddress(token),
      abi: erc20Abi,
      functionName: 'approve',
      args: [getAddress(chain.addresses.batchPayments), maxUint256],
    }),
  });
  const firstBlock = (await chain.client.getBlockNumber({ cacheTime: 0 })) + 1n;
  for (let sent = 0; sent < options.logs; sent += options.perTx) {
    const count = Math.min(options.perTx, options.logs - sent);
    const details = Array.from({ length: count }, (_, i) => i).flatMap((i) => {
      const detail = meta.requestDetails[(sent + i) % meta.requestDetails.length];
      return detail ? [detail] : [];
    });
    const hash = await wallet.sendTransaction({
      to: getAddress(chain.addresses.batchPayments),
      data: encodeFunctionData({
        abi: batchPaymentsAbi,
        functionName: 'batchPayments',
        args: [[{ ...meta, requestDetails: details }], pathsToUsd, feeAddress],
      }),
    });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`backlog transaction ${hash} reverted`);
  }
  const lastBlock = await chain.client.getBlockNumber({ cacheTime: 0 });
  return { firstBlock, lastBlock };
}
