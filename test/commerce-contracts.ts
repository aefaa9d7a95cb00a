import {
  type Abi,
  type Account,
  type Address,
  type ContractFunctionArgs,
  type ContractFunctionName,
  createWalletClient,
  custom,
  type Hex,
  parseAbi,
  type TransactionReceipt,
} from 'viem';
import { erc20Abi } from '../src/payments/abis.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';
import {
  authCaptureEscrowArtifact,
  commerceEscrowWrapperArtifact,
  preApprovalPaymentCollectorArtifact,
} from '../src/sandbox/commerce-escrow-artifacts.ts';

/**
 * Helpers for tests that drive the sandbox's commerce contracts (src/sandbox/contracts/
 * commerce/) directly from wallets: sending a call and reading its receipt, the
 * wrapper's `AuthParams`, and balances.
 */

const COMMERCE_ERRORS = [
  ...authCaptureEscrowArtifact.abi,
  ...preApprovalPaymentCollectorArtifact.abi,
].filter((item) => item.type === 'error');

/** Sends one contract call from `account` and answers its receipt; throws if it reverts. */
export async function write<
  const abi extends Abi,
  name extends ContractFunctionName<abi, 'nonpayable' | 'payable'>,
>(
  chain: LocalChain,
  account: Account,
  request: {
    address: Address;
    abi: abi;
    functionName: name;
    args: ContractFunctionArgs<abi, 'nonpayable' | 'payable', name>;
  },
): Promise<TransactionReceipt> {
  const wallet = createWalletClient({
    account,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
  // Simulated first, so a revert throws with the custom error decoded, even one the escrow or
  // a collector raised under the wrapper.
  const { request: simulated } = await chain.client.simulateContract({
    ...request,
    abi: [...request.abi, ...COMMERCE_ERRORS],
    account,
  } as Parameters<typeof chain.client.simulateContract>[0]);
  const hash = await wallet.writeContract(simulated);
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

export function balanceOf(chain: LocalChain, token: Address, owner: Address): Promise<bigint> {
  return chain.client.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  });
}

/** `approve` without a return value: the sandbox's USDC and USDT (USDT's kind) return none. */
const APPROVE = parseAbi(['function approve(address spender, uint256 amount)']);

export async function approve(
  chain: LocalChain,
  owner: Account,
  token: Address,
  spender: Address,
  amount: bigint,
): Promise<void> {
  await write(chain, owner, {
    address: token,
    abi: APPROVE,
    functionName: 'approve',
    args: [spender, amount],
  });
}

/** Typed from the artifact: abi.ts's ABIs spell their structs in strings viem cannot type. */
export const wrapperAbi = commerceEscrowWrapperArtifact.abi;

export type AuthParams = ContractFunctionArgs<
  typeof wrapperAbi,
  'nonpayable',
  'authorizePayment'
>[0];

/** The wrapper's `AuthParams`, collected by the sandbox's pre-approval collector. */
export function authParams(
  chain: LocalChain,
  input: {
    paymentReference: Hex;
    payer: Address;
    merchant: Address;
    operator: Address;
    token: Address;
    amount: bigint;
    /** Seconds from `now` to each expiry. */
    now: bigint;
    preApproval?: bigint;
    authorization?: bigint;
    refund?: bigint;
  },
): AuthParams {
  return {
    paymentReference: input.paymentReference,
    payer: input.payer,
    merchant: input.merchant,
    operator: input.operator,
    token: input.token,
    amount: input.amount,
    maxAmount: input.amount,
    preApprovalExpiry: input.now + (input.preApproval ?? 3_600n),
    authorizationExpiry: input.now + (input.authorization ?? 86_400n),
    refundExpiry: input.now + (input.refund ?? 30n * 86_400n),
    tokenCollector: chain.addresses.preApprovalPaymentCollector,
    collectorData: '0x',
  };
}

export type ChargeParams = ContractFunctionArgs<
  typeof wrapperAbi,
  'nonpayable',
  'chargePayment'
>[0];

/** The wrapper's `ChargeParams`: `authParams`'s terms, with a fee. */
export function chargeParams(
  params: AuthParams,
  fee: { feeBps: number; feeReceiver: Address },
): ChargeParams {
  const { tokenCollector, collectorData, ...terms } = params;
  return { ...terms, ...fee, tokenCollector, collectorData };
}

/** The latest block's timestamp. */
export async function chainNow(chain: LocalChain): Promise<bigint> {
  return (await chain.client.getBlock()).timestamp;
}

/** How viem words a reverted call's custom error: its signature, then its arguments. */
export function customError(name: string, ...args: readonly (bigint | string)[]): RegExp {
  const values = args.map((arg) => String(arg)).join(', ');
  return new RegExp(`Error: ${name}\\([^)]*\\)\\s+\\(${values}\\)`);
}
