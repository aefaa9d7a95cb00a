import {
  type Account,
  type Address,
  createWalletClient,
  custom,
  encodeFunctionData,
  getAddress,
  type Hex,
  parseSignature,
} from 'viem';
import type { EoaApprovalPermit } from '../src/payments/calldata/eoa-approval.ts';
import { PERMIT_TYPES, tokenPermitAbi } from '../src/payments/permit-support.ts';
import type { PaymentTransaction } from '../src/payments/transactions.ts';
import { loadArtifact } from '../src/sandbox/artifacts.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';
import { accountOf } from './chain.ts';

/**
 * A smart account on a local chain: the sandbox's BatchAccount (src/sandbox/contracts), owned by
 * one EOA, running a batch of calls atomically, sent by its owner or relayed with the owner's
 * signature as a bundler relays a user operation.
 */

export interface Call {
  readonly target: Address;
  readonly value: bigint;
  readonly data: Hex;
}

const SIGNED_BATCH_WINDOW_SECONDS = 600n;

function walletOf(chain: LocalChain, account: Account) {
  return createWalletClient({
    account,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
}

/** Deploys a BatchAccount for `owner` (wallet 0 pays the deployment). */
export async function deployBatchAccount(chain: LocalChain, owner: Address): Promise<Address> {
  const { abi, bytecode } = loadArtifact('BatchAccount');
  const hash = await walletOf(chain, accountOf(chain, 0)).deployContract({
    abi,
    bytecode,
    args: [owner],
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('BatchAccount not deployed');
  return getAddress(receipt.contractAddress);
}

export function callsOf(transactions: readonly PaymentTransaction[]): Call[] {
  return transactions.map((tx) => {
    if ('type' in tx) throw new Error('a Tron transaction in a smart account’s batch');
    return { target: tx.to, value: BigInt(tx.value), data: tx.data };
  });
}

/** `permit(owner, spender, value, deadline, v, r, s)` from the typed data and its signature. */
export function permitCall(token: Address, permit: EoaApprovalPermit, signature: Hex): Call {
  const { r, s, v, yParity } = parseSignature(signature);
  const m = permit.message;
  return {
    target: token,
    value: 0n,
    data: encodeFunctionData({
      abi: tokenPermitAbi,
      functionName: 'permit',
      args: [
        m.owner,
        m.spender,
        BigInt(m.value),
        BigInt(m.deadline),
        Number(v ?? BigInt(yParity + 27)),
        r,
        s,
      ],
    }),
  };
}

/** The owner signs the permit as a wallet would sign `eth_signTypedData_v4` of the answer. */
export async function signPermit(owner: Account, permit: EoaApprovalPermit): Promise<Hex> {
  if (!owner.signTypedData) throw new Error('the account cannot sign typed data');
  const m = permit.message;
  return owner.signTypedData({
    domain: permit.domain,
    types: PERMIT_TYPES,
    primaryType: 'Permit',
    message: {
      owner: m.owner,
      spender: m.spender,
      value: BigInt(m.value),
      nonce: BigInt(m.nonce),
      deadline: BigInt(m.deadline),
    },
  });
}

async function mined(chain: LocalChain, hash: Hex): Promise<Hex> {
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return hash;
}

/** The owner sends the batch itself. */
export async function executeAsOwner(
  chain: LocalChain,
  owner: Account,
  account: Address,
  calls: readonly Call[],
): Promise<Hex> {
  const { abi } = loadArtifact('BatchAccount');
  const hash = await walletOf(chain, owner).writeContract({
    address: account,
    abi,
    functionName: 'executeBatch',
    args: [calls],
    chain: chain.chain,
  });
  return mined(chain, hash);
}

/** The owner signs the batch and `relayer` sends it: the owner sends no transaction. */
export async function executeRelayed(
  chain: LocalChain,
  owner: Account,
  relayer: Account,
  account: Address,
  calls: readonly Call[],
): Promise<Hex> {
  const { abi } = loadArtifact('BatchAccount');
  const nonce = (await chain.client.readContract({
    address: account,
    abi,
    functionName: 'nonce',
  })) as bigint;
  const block = await chain.client.getBlock();
  const deadline = block.timestamp + SIGNED_BATCH_WINDOW_SECONDS;
  const digest = (await chain.client.readContract({
    address: account,
    abi,
    functionName: 'batchHash',
    args: [calls, nonce, deadline],
  })) as Hex;
  if (!owner.signMessage) throw new Error('the account cannot sign messages');
  const signature = await owner.signMessage({ message: { raw: digest } });
  const hash = await walletOf(chain, relayer).writeContract({
    address: account,
    abi,
    functionName: 'executeBatchSigned',
    args: [calls, deadline, signature],
    chain: chain.chain,
  });
  return mined(chain, hash);
}
