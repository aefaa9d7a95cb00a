import {
  type Address,
  type Client,
  createClient,
  custom,
  encodeFunctionData,
  isAddress,
} from 'viem';
import { requestAddresses, sendTransaction, waitForTransactionReceipt } from 'viem/actions';
import type { WalletChoice } from '../../../web/eip6963.ts';
import type { PayContext } from '../context.ts';
import { symbolOf } from '../format.ts';
import type { SafeCalldata } from '../safe-calldata.ts';
import { connectingScreen, payingScreen } from '../screens.ts';
import { forgetSent, rememberSent } from '../sent.ts';
import { chainOf, ensureChain } from './evm.ts';
import { Problem } from './problems.ts';
import { SAFE_TX_TYPES } from './safe-tx-types.ts';
import { reporter } from './telemetry.ts';

/**
 * Paying from a Safe the connected wallet owns: `/pay?isSafe=true` answers the one Safe
 * transaction that makes every call of the link, the owner signs it as EIP-712 typed data, and
 * when the Safe needs no other signature the owner executes it at once (`execTransaction`,
 * paying the gas). Otherwise the page records it (`POST /{token}/intent`, the link then answers
 * 423) and waits while the other owners sign the same `safeTxHash` and one executes it.
 */

const RECEIPT_POLL_MS = 1_000;

const EXEC_TRANSACTION = [
  {
    type: 'function',
    name: 'execTransaction',
    stateMutability: 'payable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'data', type: 'bytes' },
      { name: 'operation', type: 'uint8' },
      { name: 'safeTxGas', type: 'uint256' },
      { name: 'baseGas', type: 'uint256' },
      { name: 'gasPrice', type: 'uint256' },
      { name: 'gasToken', type: 'address' },
      { name: 'refundReceiver', type: 'address' },
      { name: 'signatures', type: 'bytes' },
    ],
    outputs: [{ name: 'success', type: 'bool' }],
  },
] as const;

type SafeTransaction = SafeCalldata['safeTransaction'];

const SAFES_KEY = 'payreq:safes';
const SAFES_KEPT = 5;

/** The Safes this browser paid from, latest first: offered to pick from next time. */
export function knownSafes(): string[] {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(SAFES_KEY) ?? '[]');
    return Array.isArray(saved) ? saved.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

function rememberSafe(safe: string): void {
  try {
    const others = knownSafes().filter((s) => s.toLowerCase() !== safe.toLowerCase());
    localStorage.setItem(SAFES_KEY, JSON.stringify([safe, ...others].slice(0, SAFES_KEPT)));
  } catch {
    // Storage off: the payer types the Safe next time.
  }
}

/** The Safe's balance must cover the link: said in words before any signature is asked. */
function assertFunded(calldata: SafeCalldata, context: PayContext): void {
  const metadata = calldata.metadata;
  const { display } = context;
  const currency = display.paymentType === 'single' ? symbolOf(display.paymentCurrency) : '';
  if (metadata.hasEnoughBalance === false) {
    throw new Problem(
      `The Safe holds ${metadata.balance ?? 'less than'} ${currency}, and the payment needs ${metadata.maxToSpend ?? metadata.requiredAmount ?? 'more'} ${currency}. Add funds to the Safe, or pay from another wallet.`,
    );
  }
  const short = metadata.insufficientTokens?.[0];
  if (short) {
    const symbol = short.tokenSymbol ?? '';
    throw new Problem(
      `The Safe holds ${short.available} ${symbol}, and the payments need ${short.required} ${symbol}. Add funds to the Safe, or pay from another wallet.`,
    );
  }
}

function typedDataOf(tx: SafeTransaction): string {
  return JSON.stringify({
    domain: { chainId: tx.chainId, verifyingContract: tx.safeAddress },
    types: SAFE_TX_TYPES,
    primaryType: 'SafeTx',
    message: {
      to: tx.to,
      value: tx.value,
      data: tx.data,
      operation: tx.operation,
      safeTxGas: tx.safeTxGas,
      baseGas: tx.baseGas,
      gasPrice: tx.gasPrice,
      gasToken: tx.gasToken,
      refundReceiver: tx.refundReceiver,
      nonce: tx.nonce,
    },
  });
}

/** The owner's signature: 65 bytes, `v` 27 or 28, which the Safe checks as EIP-712. */
async function signSafeTx(client: Client, owner: Address, tx: SafeTransaction): Promise<string> {
  const signature: unknown = await client.request({
    method: 'eth_signTypedData_v4',
    params: [owner, typedDataOf(tx)],
  });
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) {
    throw new Problem('Your wallet gave no usable signature of the Safe transaction. Try again.');
  }
  return signature;
}

/** The symbol the link is paid in, as an intent names it (`USDC`). */
function tokenOf(context: PayContext): string {
  const { display } = context;
  const currency =
    display.paymentType === 'single'
      ? display.paymentCurrency
      : display.paymentType === 'batch'
        ? display.paymentCurrencies[0]
        : display.totals.byDestinationCurrency[0]?.currency;
  return symbolOf(currency ?? '').toUpperCase();
}

/**
 * Pays the link from `safeInput` with the connected owner. Returns the executing transaction
 * (the page follows it), or null once the page waits for the other owners.
 */
export async function payFromSafe(
  context: PayContext,
  wallet: WalletChoice,
  safeInput: string,
): Promise<string[] | null> {
  const safe = safeInput.trim();
  if (!isAddress(safe, { strict: false })) {
    throw new Problem('Enter the Safe’s address: 0x followed by 40 hexadecimal characters.');
  }
  context.show(connectingScreen(wallet.name));
  const chain = chainOf(context.network);
  const transport = custom(wallet.provider, { retryCount: 0 });
  const client = createClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS });
  const [account] = await requestAddresses(client);
  if (!account) throw new Problem('Your wallet shared no account. Unlock it, then try again.');
  const report = reporter(context, wallet.rdns, account);
  report('wallet_connected');
  await ensureChain(context, client, chain);

  context.show(payingScreen(1, 2, 'Prepare the Safe transaction', 'Reading the Safe…'));
  const calldata = await context.api.safeCalldata(context.token, safe);
  const tx = calldata.safeTransaction;
  if (!tx.owners.some((owner) => owner.toLowerCase() === account.toLowerCase())) {
    throw new Problem(
      `The connected account ${account} is not an owner of the Safe ${tx.safeAddress}. Connect an owner’s account, or pay from another wallet.`,
    );
  }
  assertFunded(calldata, context);
  rememberSafe(tx.safeAddress);

  const action = 'Sign the Safe transaction';
  context.show(payingScreen(1, 2, action, `Confirm in ${wallet.name}.`));
  const signature = await signSafeTx(client, account, tx);

  if (tx.threshold > 1) {
    const chainName = context.network.intentChain;
    if (chainName === null) {
      throw new Problem(
        `This Safe needs ${tx.threshold} signatures, and a Safe transaction cannot be recorded on ${context.network.name}. Use a Safe that one owner can execute.`,
      );
    }
    const recorded = await context.api.recordSafeIntent(context.token, {
      safeTxHash: tx.safeTxHash,
      chain: chainName,
      token: tokenOf(context),
      payerAddress: tx.safeAddress,
    });
    const deadline = recorded.safePaymentDeadline ?? calldata.metadata.safePaymentDeadline ?? null;
    context.waitForSafe(
      { safeTxHash: tx.safeTxHash, chainId: tx.chainId, deadline },
      { safe: tx.safeAddress, threshold: tx.threshold, signed: 1 },
    );
    return null;
  }

  const execute = 'Execute the Safe transaction';
  context.show(payingScreen(2, 2, execute, `Confirm in ${wallet.name}.`));
  report('payment_sent_to_wallet');
  const hash = await sendTransaction(client, {
    account,
    chain,
    to: tx.safeAddress as Address,
    value: 0n,
    data: encodeFunctionData({
      abi: EXEC_TRANSACTION,
      functionName: 'execTransaction',
      args: [
        tx.to,
        BigInt(tx.value),
        tx.data,
        tx.operation,
        BigInt(tx.safeTxGas),
        BigInt(tx.baseGas),
        BigInt(tx.gasPrice),
        tx.gasToken,
        tx.refundReceiver,
        signature as `0x${string}`,
      ],
    }),
  });
  report('payment_approved_in_wallet', {
    payment_submission_id: hash,
    payment_submission_id_type: 'transaction_hash',
  });
  // On its way: a reload follows the link rather than offer to pay it again.
  rememberSent(context.token, [hash]);
  context.show(payingScreen(2, 2, execute, 'Sent. Waiting for the network to include it…'));
  if ((await waitForTransactionReceipt(client, { hash })).status !== 'success') {
    forgetSent(context.token);
    throw new Problem(
      'The network refused the Safe transaction, so nothing was paid. Try again; if it keeps failing, contact the merchant.',
    );
  }
  return [hash];
}
