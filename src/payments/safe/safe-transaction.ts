import { type Address, getAddress, type Hex, numberToHex, zeroAddress } from 'viem';
import { AppError } from '../../base/errors.ts';
import type { Network } from '../../chains/networks.ts';
import { type CalldataDeps, multicallOf } from '../calldata/shared.ts';
import type { EvmTransaction } from '../transactions.ts';
import { encodeMultiSend, SAFE_DELEGATECALL } from './multi-send.ts';
import { readSafe, type SafeState } from './read-safe.ts';
import { type SafeTx, safeTxHash } from './safe-tx.ts';

/**
 * A payer that is a Safe pays with one Safe transaction: every call the payment needs (its
 * approvals, the payment, the fee legs), made by the Safe through one delegatecall of
 * MultiSendCallOnly's `multiSend`, all or none. Its owners sign its `safeTxHash`, and any one
 * of them (or anyone) executes it with `execTransaction` and their signatures. Built for `/pay`,
 * and for whatever follows a Safe's payment afterwards, from the same two pieces: the Safe as
 * read (`readPayerSafe`) and the calls (`safeTransaction`).
 */

/** A Safe about to pay, as read from its network. */
export interface PayerSafe {
  readonly address: Address;
  readonly chainId: number;
  readonly multiSendCallOnly: Address;
  readonly state: SafeState;
  /** Unix seconds: until when the payment is expected (`safePaymentDeadline`). */
  readonly deadline: number;
}

/** The Safe transaction to sign, as `/pay` answers it: uint256 fields as decimal strings. */
export interface SafeTransaction {
  readonly safeAddress: Address;
  readonly chainId: number;
  readonly to: Address;
  readonly value: string;
  readonly data: Hex;
  readonly operation: typeof SAFE_DELEGATECALL;
  readonly safeTxGas: string;
  readonly baseGas: string;
  readonly gasPrice: string;
  readonly gasToken: Address;
  readonly refundReceiver: Address;
  readonly nonce: string;
  readonly safeTxHash: Hex;
  readonly threshold: number;
  readonly owners: readonly Address[];
  /** The calls packed into `data`, in order: what a wallet that is no Safe would send. */
  readonly calls: readonly EvmTransaction[];
}

function notASafeMessage(wallet: string, network: string): string {
  return `${wallet} is not a Safe (1.3.0 or later) on ${network}`;
}

/**
 * The Safe `wallet` on `network`, or a 400: the network has no MultiSendCallOnly
 * (`safe_not_supported`), or the wallet does not answer as a Safe there (`not_a_safe`).
 */
export async function readPayerSafe(
  deps: CalldataDeps,
  network: Network,
  wallet: string,
  deadline: number,
): Promise<PayerSafe> {
  const multiSend = deps.chains.contracts(network.id).multiSendCallOnly;
  if (network.kind !== 'evm' || !multiSend) {
    throw new AppError(
      'safe_not_supported',
      `Multisig (Safe) payments are not supported on ${network.id}`,
    );
  }
  const address = getAddress(wallet);
  const multicall3 = multicallOf(deps, network);
  const state = await deps.clients.read(network.id, (client) =>
    readSafe(client, multicall3, address),
  );
  if (!state) throw new AppError('not_a_safe', notASafeMessage(address, network.id));
  return {
    address,
    chainId: network.chainId,
    multiSendCallOnly: getAddress(multiSend),
    state,
    deadline,
  };
}

/**
 * `safePaymentDeadline` of a link: its expiry, in Unix seconds. Past it the link takes no
 * payment, so a Safe transaction still waiting for signatures is no longer expected; links
 * live seven days, time enough for owners in several time zones to sign.
 */
export function safePaymentDeadline(expiresAt: Date): number {
  return Math.floor(expiresAt.getTime() / 1000);
}

/**
 * The calls as one Safe transaction at the Safe's current nonce. No refund (gas price, base gas
 * and safeTxGas 0, no gas token): whoever executes pays the gas, and with safeTxGas 0 a call
 * that fails makes `execTransaction` revert, so a failed payment uses no nonce.
 */
export function safeTransaction(
  safe: PayerSafe,
  calls: readonly EvmTransaction[],
): SafeTransaction {
  for (const call of calls) {
    if (call.chainId !== safe.chainId) throw new Error('a Safe transaction spans one chain');
  }
  const tx: SafeTx = {
    to: safe.multiSendCallOnly,
    value: 0n,
    data: encodeMultiSend(calls),
    operation: SAFE_DELEGATECALL,
    safeTxGas: 0n,
    baseGas: 0n,
    gasPrice: 0n,
    gasToken: zeroAddress,
    refundReceiver: zeroAddress,
    nonce: safe.state.nonce,
  };
  return {
    safeAddress: safe.address,
    chainId: safe.chainId,
    to: tx.to,
    value: '0',
    data: tx.data,
    operation: SAFE_DELEGATECALL,
    safeTxGas: '0',
    baseGas: '0',
    gasPrice: '0',
    gasToken: tx.gasToken,
    refundReceiver: tx.refundReceiver,
    nonce: String(tx.nonce),
    safeTxHash: safeTxHash(safe.chainId, safe.address, tx),
    threshold: safe.state.threshold,
    owners: safe.state.owners,
    calls,
  };
}

/**
 * The one call the Safe makes for the payer (to MultiSendCallOnly, by delegatecall): what
 * `/pay`'s transaction fields carry for a Safe. Sent as a transaction from a wallet, it would
 * move nothing: MultiSendCallOnly holds no tokens.
 */
export function safeExecution(safeTx: SafeTransaction): EvmTransaction {
  return { to: safeTx.to, data: safeTx.data, value: numberToHex(0), chainId: safeTx.chainId };
}
