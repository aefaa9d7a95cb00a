import { type Address, getAddress, type Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../base/errors.ts';
import type { NetworkId } from '../chains/networks.ts';
import type { PrivateKey } from '../config/config.ts';
import type { ClientIdRow } from '../db/schema.ts';

/**
 * The server's commerce operator on each network: `COMMERCE_OPERATOR_KEY`'s account wherever it
 * is set; without it, `sandbox`'s (a development key, holding nothing of value) on the sandbox
 * chains only, and none elsewhere.
 */
export function serverOperator(
  key: PrivateKey | null,
  sandbox: { readonly isSandbox: (network: NetworkId) => boolean; readonly key: Hex } | null,
): (network: NetworkId) => PrivateKeyAccount | null {
  const configured = key === null ? null : privateKeyToAccount(key.reveal());
  const local = sandbox === null ? null : privateKeyToAccount(sandbox.key);
  return (network) => configured ?? (local && sandbox?.isSandbox(network) ? local : null);
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
