import {
  type Address,
  type Hex,
  isHex,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerialized,
} from 'viem';
import { AppError } from '../base/errors.ts';
import type { EvmTransaction } from '../payments/transactions.ts';

/**
 * A transaction the operator signed with its own key (`signedTransaction`): checked to be
 * exactly the call the payment expects — to the wrapper, with the expected calldata, no value,
 * on the payment's chain, signed by the payment's operator — before it is broadcast as it is.
 */

export interface CheckedTransaction {
  readonly serialized: Hex;
  readonly hash: Hex;
  /** The operator's nonce it takes (the reconciler's test for a dropped transaction). */
  readonly nonce: number;
}

function mismatch(message: string): AppError {
  return new AppError('signed_transaction_mismatch', `signedTransaction ${message}`);
}

/** Hex of some length: parsing decides whether it is a transaction, and which kind. */
function isSerialized(value: string): value is TransactionSerialized {
  return isHex(value) && value.length > 2;
}

export async function checkSignedTransaction(
  serialized: string,
  expected: EvmTransaction,
  operator: string,
): Promise<CheckedTransaction> {
  if (!isSerialized(serialized)) throw mismatch('is not a hex-encoded signed transaction');
  let parsed: ReturnType<typeof parseTransaction>;
  let signer: Address;
  try {
    parsed = parseTransaction(serialized);
    signer = await recoverTransactionAddress({ serializedTransaction: serialized });
  } catch {
    throw mismatch('is not a signed EVM transaction');
  }
  if (parsed.chainId !== expected.chainId) {
    throw mismatch(`is for chain ${parsed.chainId ?? 'none'}, not ${expected.chainId}`);
  }
  if (parsed.to?.toLowerCase() !== expected.to.toLowerCase()) {
    throw mismatch(`is not sent to the wrapper ${expected.to}`);
  }
  if ((parsed.data ?? '0x').toLowerCase() !== expected.data.toLowerCase()) {
    throw mismatch('does not carry the expected calldata (see the /calldata operation)');
  }
  if ((parsed.value ?? 0n) !== 0n) throw mismatch('sends value: it must send none');
  if (signer.toLowerCase() !== operator.toLowerCase()) {
    throw mismatch(`is signed by ${signer}, not the payment's operator ${operator}`);
  }
  return { serialized, hash: keccak256(serialized), nonce: parsed.nonce ?? 0 };
}
