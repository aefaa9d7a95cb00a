import { type Address, getAddress } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../base/errors.ts';
import type { PrivateKey } from '../config/config.ts';
import type { ClientIdRow } from '../db/schema.ts';

/** The server's commerce operator, from `COMMERCE_OPERATOR_KEY`; null when unset. */
export function serverOperator(key: PrivateKey | null): PrivateKeyAccount | null {
  return key === null ? null : privateKeyToAccount(key.reveal());
}

/**
 * Who operates a new payment: the client ID's operator wallet, else the server's operator;
 * neither is a 400 (the payment could never be captured).
 */
export function operatorFor(
  clientId: ClientIdRow | null,
  server: PrivateKeyAccount | null,
): Address {
  if (clientId?.operatorWalletAddress) return getAddress(clientId.operatorWalletAddress);
  if (server) return server.address;
  throw new AppError(
    'commerce_operator_missing',
    'No commerce operator: set operatorWalletAddress on the client ID, or COMMERCE_OPERATOR_KEY on the server',
  );
}

/** The server's signer when it operates `operator`'s payments, else null. */
export function serverSigns(
  operator: string,
  server: PrivateKeyAccount | null,
): PrivateKeyAccount | null {
  return server !== null && server.address.toLowerCase() === operator.toLowerCase() ? server : null;
}
