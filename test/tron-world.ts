import {
  createWalletClient,
  custom,
  encodeAbiParameters,
  encodeFunctionData,
  type LocalAccount,
  numberToHex,
  parseAbi,
} from 'viem';
import { tronToEvm } from '../src/chains/tron-address.ts';
import { tronArguments } from '../src/payments/calldata/tron.ts';
import type { TronTransaction } from '../src/payments/transactions.ts';
import { loadArtifact } from '../src/sandbox/artifacts.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';
import { accountOf, sendAll } from './chain.ts';
import { type FakeTronNode, startFakeTronNode } from './fake-tron-node.ts';

/**
 * A Tron network for tests that pay Tron links: on a local EVM, the sandbox's token and fee
 * proxy copied to the 20-byte forms of Tron's USDT and ERC20FeeProxy addresses (Tron runs the
 * same code on the same 20 bytes), the payers funded, and the fake full node over real HTTP.
 */

export const TRON_CHAIN_ID = 728126428;
export const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const TRON_PROXY = 'TCUDPYnS9dH3WvFEaE7wN7vnDa51J4R4fd';
const TOKEN_ABI = parseAbi([
  'function mint(address to, uint256 amount)',
  'function balanceOf(address) view returns (uint256)',
]);

/** Places the contracts on `chain` and mints 100 USDT to each payer; then starts the node. */
export async function startTronWorld(
  chain: LocalChain,
  payers: readonly number[],
): Promise<FakeTronNode> {
  for (const [tron, from] of [
    [TRON_USDT, chain.addresses.usdt],
    [TRON_PROXY, chain.addresses.erc20FeeProxy],
  ] as const) {
    const code = await chain.client.getCode({ address: from });
    await chain.provider.request({
      method: 'hardhat_setCode',
      params: [tronToEvm(tron), code],
    });
  }
  for (const payer of payers) {
    await sendAll(chain, accountOf(chain, payer), [
      {
        to: tronToEvm(TRON_USDT),
        data: encodeFunctionData({
          abi: TOKEN_ABI,
          functionName: 'mint',
          args: [accountOf(chain, payer).address, 100_000_000n],
        }),
        value: '0x0',
        chainId: chain.chainId,
      },
    ]);
  }
  return startFakeTronNode({ chain, proxy: TRON_PROXY });
}

export async function tronBalance(chain: LocalChain, owner: string): Promise<bigint> {
  return chain.client.readContract({
    address: tronToEvm(TRON_USDT),
    abi: TOKEN_ABI,
    functionName: 'balanceOf',
    args: [tronToEvm(owner)],
  });
}

export interface SignedTron {
  txID: string;
  raw_data: Record<string, unknown> & { contract: unknown[]; fee_limit: number };
  raw_data_hex: string;
  signature: string[];
  visible: boolean;
}

/**
 * What TronLink does with one of a link's calls: builds it on the node (TronWeb's
 * triggerSmartContract: ABI-encoded parameters, `41…` hex addresses) and signs its id.
 */
export async function signTronCall(
  nodeUrl: string,
  tx: TronTransaction,
  owner: LocalAccount,
): Promise<SignedTron> {
  const res = await fetch(`${nodeUrl}/wallet/triggersmartcontract`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      owner_address: hex41(owner.address),
      contract_address: hex41(tronToEvm(tx.contractAddress)),
      function_selector: tx.functionSelector,
      parameter: encodeAbiParameters(
        tx.parameters.map((p) => ({ type: p.type })),
        tronArguments(tx.parameters),
      ).slice(2),
      fee_limit: tx.feeLimit,
      call_value: tx.callValue,
      visible: false,
    }),
  });
  const built = (await res.json()) as { transaction: Omit<SignedTron, 'signature'> };
  return signTron(built.transaction, owner);
}

/** Signs (or re-signs) a transaction's id with `owner`'s key, as a wallet does. */
export async function signTron(
  tx: Omit<SignedTron, 'signature'>,
  owner: LocalAccount,
): Promise<SignedTron> {
  const signature = await owner.sign?.({ hash: `0x${tx.txID}` });
  if (!signature) throw new Error('this account cannot sign');
  return { ...tx, signature: [signature.slice(2)] };
}

function hex41(address: string): string {
  return `41${address.slice(2).toLowerCase()}`;
}

export const TRON_BATCH = 'TRZbXXuLd3HW5utzVysA3rpLgU7sVBrd1D';

/**
 * The Tron ERC20BatchPayments at its Tron address's 20 bytes. No registry package ships it;
 * its two ERC20 functions are the legacy BatchPayments' (contracts.md §2.2), whose real
 * bytecode is deployed against the Tron fee proxy, moved (code and storage) to the Tron batch
 * address, and set to no batch fee, as the Tron contract has none.
 */
export async function placeTronBatch(chain: LocalChain): Promise<void> {
  const request = (method: string, params: unknown[]) => chain.provider.request({ method, params });
  const owner = accountOf(chain, 0);
  const wallet = createWalletClient({
    account: owner,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  const { abi, bytecode } = loadArtifact('BatchPayments');
  const hash = await wallet.deployContract({
    abi,
    bytecode,
    args: [tronToEvm(TRON_PROXY), chain.addresses.ethFeeProxy, owner.address],
  });
  const deployed = (await chain.client.waitForTransactionReceipt({ hash })).contractAddress;
  if (!deployed) throw new Error('BatchPayments was not deployed');
  const target = tronToEvm(TRON_BATCH);
  await request('hardhat_setCode', [target, await chain.client.getCode({ address: deployed })]);
  for (let slot = 0; slot < 8; slot++) {
    const value = await chain.client.getStorageAt({ address: deployed, slot: numberToHex(slot) });
    await request('hardhat_setStorageAt', [target, numberToHex(slot, { size: 32 }), value]);
  }
  await wallet.writeContract({
    address: target,
    abi: parseAbi(['function setBatchFee(uint256 _batchFee)']),
    functionName: 'setBatchFee',
    args: [0n],
  });
}
