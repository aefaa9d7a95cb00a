import { type Address, concatHex, encodeFunctionData, getAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SANDBOX_NETWORK } from '../chains/networks.ts';
import { safeAbi } from '../payments/safe/abi.ts';
import type { SafeTransaction } from '../payments/safe/safe-transaction.ts';
import { safeTxTypedData } from '../payments/safe/safe-tx.ts';
import { getJson, sandboxClient, sendMined, testWallet } from './cli-http.ts';

/**
 * `payreq sandbox pay <token> --safe <address> --wallet <n>,<m>`: what a Safe's owners do,
 * scripted. Fetches the link's Safe transaction (`/pay?isSafe=true`) from the running server,
 * has each listed test wallet sign it (EIP-712, as a browser wallet does), and the first of
 * them execute it with every signature (`execTransaction`), as Safe's own app does once the
 * threshold is met.
 */
export async function sandboxPaySafe(input: {
  baseUrl: string;
  token: string;
  safe: string;
  wallets: readonly number[];
  apiKey: string;
}): Promise<{
  safe: Address;
  signers: Address[];
  executor: Address;
  safeTxHash: Hex;
  transactions: Hex[];
}> {
  const signers = input.wallets.map((index) => testWallet(index));
  const [executor] = signers;
  if (!executor) throw new Error('--wallet must name at least one owner of the Safe');
  const safe = getAddress(input.safe);
  const payUrl = `${input.baseUrl}/v2/secure-payments/${encodeURIComponent(input.token)}/pay?isSafe=true&wallet=${safe}`;
  const body = await getJson<{
    message?: string;
    safeTransaction?: SafeTransaction;
    metadata?: { hasEnoughBalance?: boolean; balance?: string; requiredAmount?: string };
    statusCode?: number;
  }>(payUrl, { 'x-api-key': input.apiKey }, [423]);
  // 423: a Safe transaction is recorded for the link; its owners finish that one.
  const safeTx = body.safeTransaction;
  if (!safeTx) {
    throw new Error(
      body.statusCode === 423
        ? `${payUrl} answered 423: ${body.message ?? 'in progress'}, by a Safe transaction this server did not prepare`
        : `${payUrl} answered no safeTransaction: is it a payreq server?`,
    );
  }
  if (getAddress(safeTx.safeAddress) !== safe) {
    throw new Error(
      `the link waits for a transaction of the Safe ${safeTx.safeAddress}, not ${safe}`,
    );
  }
  if (safeTx.chainId !== SANDBOX_NETWORK.chainId)
    throw new Error(`this link is not on the sandbox network (chain ${safeTx.chainId})`);
  const owners = new Set(safeTx.owners.map((owner) => owner.toLowerCase()));
  for (const [i, signer] of signers.entries()) {
    if (!owners.has(signer.address.toLowerCase())) {
      throw new Error(
        `test wallet ${input.wallets[i]} (${signer.address}) is not an owner of the Safe ${safe}`,
      );
    }
  }
  if (new Set(signers.map((s) => s.address)).size < safeTx.threshold) {
    throw new Error(
      `the Safe needs ${safeTx.threshold} signatures: give --wallet ${safeTx.threshold} of its owners`,
    );
  }
  const funds = body.metadata;
  if (funds?.hasEnoughBalance === false) {
    throw new Error(
      `the Safe ${safe} holds ${funds.balance ?? '0'} and the link needs ${funds.requiredAmount ?? 'more'}: fund it first (create-safe --fund, or send it tokens)`,
    );
  }

  const typed = safeTxTypedData(safeTx.chainId, safe, {
    to: getAddress(safeTx.to),
    value: BigInt(safeTx.value),
    data: safeTx.data,
    operation: safeTx.operation,
    safeTxGas: BigInt(safeTx.safeTxGas),
    baseGas: BigInt(safeTx.baseGas),
    gasPrice: BigInt(safeTx.gasPrice),
    gasToken: getAddress(safeTx.gasToken),
    refundReceiver: getAddress(safeTx.refundReceiver),
    nonce: BigInt(safeTx.nonce),
  });
  const unique = [...new Map(signers.map((s) => [s.address, s])).values()];
  // Safe checks the signatures in ascending order of their signers.
  const ascending = [...unique].sort((a, b) =>
    a.address.toLowerCase() < b.address.toLowerCase() ? -1 : 1,
  );
  const signatures = await Promise.all(
    ascending.map((signer) => privateKeyToAccount(signer.privateKey).signTypedData(typed)),
  );
  const receipt = await sendMined(sandboxClient(input.baseUrl, executor), {
    to: safe,
    data: encodeFunctionData({
      abi: safeAbi,
      functionName: 'execTransaction',
      args: [
        typed.message.to,
        typed.message.value,
        typed.message.data,
        typed.message.operation,
        typed.message.safeTxGas,
        typed.message.baseGas,
        typed.message.gasPrice,
        typed.message.gasToken,
        typed.message.refundReceiver,
        concatHex(signatures),
      ],
    }),
  });
  return {
    safe,
    signers: unique.map((s) => s.address),
    executor: executor.address,
    safeTxHash: safeTx.safeTxHash,
    transactions: [receipt.transactionHash],
  };
}
