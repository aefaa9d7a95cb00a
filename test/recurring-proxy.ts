import {
  type Abi,
  type Address,
  createWalletClient,
  custom,
  type DecodeErrorResultReturnType,
  decodeErrorResult,
  type Hex,
  isHex,
  parseAbi,
} from 'viem';
import type { SchedulePermitValues } from '../src/payouts/recurring/permit.ts';
import { schedulePermitTypedData } from '../src/payouts/recurring/permit.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';

/**
 * Helpers for running ERC20RecurringPaymentProxy on a local chain: a payer's wallet signing a
 * schedule through `eth_signTypedData_v4`, and a call's revert decoded with the contract's ABI.
 */

export const TOKEN_ABI = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);

export const WEEK = 604_800;

/** The latest block's timestamp: the clock the contract's due dates and deadlines read. */
export async function chainTime(chain: LocalChain): Promise<number> {
  return Number((await chain.client.getBlock()).timestamp);
}

/** Mines the next block at `timestamp`. */
export async function mineAt(chain: LocalChain, timestamp: number): Promise<void> {
  await chain.provider.request({
    method: 'evm_setNextBlockTimestamp',
    params: [timestamp],
  });
  await chain.provider.request({ method: 'evm_mine' });
}

/**
 * The wallet of `signer` (an account the local chain holds) signs the permit as a browser
 * wallet would: viem sends `eth_signTypedData_v4` to the node, which signs with its key.
 */
export async function signPermit(
  chain: LocalChain,
  proxy: Address,
  signer: Address,
  permit: SchedulePermitValues,
): Promise<Hex> {
  const wallet = createWalletClient({
    account: signer,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  return wallet.signTypedData(schedulePermitTypedData(chain.chainId, proxy, permit));
}

/** The error `from` calling `to` with `data` reverts with, decoded (`Error`, `Panic` included). */
export async function revertOf(
  chain: LocalChain,
  abi: Abi,
  call: { from: Address; to: Address; data: Hex },
): Promise<DecodeErrorResultReturnType<Abi>> {
  try {
    await chain.client.call({ account: call.from, to: call.to, data: call.data });
  } catch (error) {
    const data = revertData(error);
    if (!data) throw error;
    return decodeErrorResult({ abi, data });
  }
  throw new Error('the call did not revert');
}

/** The revert bytes somewhere down the error's causes (EDR puts them on its innermost error). */
function revertData(error: unknown): Hex | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    const data = (e as { data?: unknown }).data;
    const bytes =
      typeof data === 'object' && data !== null ? (data as { data?: unknown }).data : data;
    if (typeof bytes === 'string' && isHex(bytes)) return bytes;
  }
  return undefined;
}
