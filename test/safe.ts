import {
  type Account,
  type Address,
  concatHex,
  createWalletClient,
  custom,
  type Hex,
  hexToBigInt,
  parseAbi,
  sliceHex,
  toHex,
} from 'viem';
import { safeAbi } from '../src/payments/safe/abi.ts';
import type { SafeTransaction } from '../src/payments/safe/safe-transaction.ts';
import { safeTxTypedData } from '../src/payments/safe/safe-tx.ts';
import type { LocalChain } from '../src/sandbox/chain.ts';
import { createdSafe, createSafeCall } from '../src/sandbox/safe.ts';
import { accountOf } from './chain.ts';

/**
 * Safes on a local chain, as their owners use them: made through the canonical proxy factory,
 * funded, their transactions signed by owners (EIP-712, or `eth_sign` as hardware wallets do)
 * and executed with `execTransaction`, Safe 1.4.1's published code doing the checking.
 */

let salt = 0n;

function walletOf(chain: LocalChain, account: Account) {
  return createWalletClient({
    account,
    chain: chain.chain,
    transport: custom(chain.provider, { retryCount: 0 }),
  });
}

async function mined(chain: LocalChain, hash: Hex) {
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

/** A Safe of `owners`, made by test wallet 0. */
export async function createSafe(
  chain: LocalChain,
  owners: readonly Address[],
  threshold: number,
  singleton: 'safeSingleton' | 'safeL2Singleton' = 'safeL2Singleton',
): Promise<Address> {
  salt += 1n;
  const call = createSafeCall({ owners, threshold, saltNonce: salt, singleton });
  const hash = await walletOf(chain, accountOf(chain, 0)).sendTransaction(call);
  return createdSafe((await mined(chain, hash)).logs);
}

const TRANSFER = parseAbi(['function transfer(address to, uint256 amount) returns (bool)']);

/** Sends `amount` base units of a token from a test wallet to the Safe. */
export async function fundSafe(
  chain: LocalChain,
  from: Account,
  token: Address,
  safe: Address,
  amount: bigint,
): Promise<void> {
  const hash = await walletOf(chain, from).writeContract({
    address: token,
    abi: TRANSFER,
    functionName: 'transfer',
    args: [safe, amount],
  });
  await mined(chain, hash);
}

export interface OwnerSignature {
  readonly signer: Address;
  readonly signature: Hex;
}

/**
 * An owner's signature of a Safe transaction from `/pay`: EIP-712 over the answer's fields (a
 * check that they hash to its `safeTxHash`), or `eth_sign` of the `safeTxHash`, whose `v` Safe
 * tells apart by 4 added to it.
 */
export async function signSafeTransaction(
  account: Account,
  safeTx: SafeTransaction,
  style: 'typed' | 'eth_sign' = 'typed',
): Promise<OwnerSignature> {
  if (!account.signTypedData || !account.signMessage) throw new Error('not a local account');
  if (style === 'typed') {
    const typed = safeTxTypedData(safeTx.chainId, safeTx.safeAddress, {
      to: safeTx.to,
      value: BigInt(safeTx.value),
      data: safeTx.data,
      operation: safeTx.operation,
      safeTxGas: BigInt(safeTx.safeTxGas),
      baseGas: BigInt(safeTx.baseGas),
      gasPrice: BigInt(safeTx.gasPrice),
      gasToken: safeTx.gasToken,
      refundReceiver: safeTx.refundReceiver,
      nonce: BigInt(safeTx.nonce),
    });
    return { signer: account.address, signature: await account.signTypedData(typed) };
  }
  const signed = await account.signMessage({ message: { raw: safeTx.safeTxHash } });
  const v = hexToBigInt(sliceHex(signed, 64)) + 4n;
  return { signer: account.address, signature: concatHex([sliceHex(signed, 0, 64), toHex(v)]) };
}

/**
 * `execTransaction` of the answer's Safe transaction by `executor`, with the owners' signatures
 * in the order Safe requires (ascending signer address). Resolves with the transaction's hash
 * once mined; rejects when it reverts.
 */
export async function executeSafeTransaction(
  chain: LocalChain,
  executor: Account,
  safeTx: SafeTransaction,
  signatures: readonly OwnerSignature[],
): Promise<Hex> {
  const sorted = [...signatures].sort((a, b) =>
    a.signer.toLowerCase() < b.signer.toLowerCase() ? -1 : 1,
  );
  const hash = await walletOf(chain, executor).writeContract({
    address: safeTx.safeAddress,
    abi: safeAbi,
    functionName: 'execTransaction',
    args: [
      safeTx.to,
      BigInt(safeTx.value),
      safeTx.data,
      safeTx.operation,
      BigInt(safeTx.safeTxGas),
      BigInt(safeTx.baseGas),
      BigInt(safeTx.gasPrice),
      safeTx.gasToken,
      safeTx.refundReceiver,
      concatHex(sorted.map((s) => s.signature)),
    ],
  });
  await mined(chain, hash);
  return hash;
}
