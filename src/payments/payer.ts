import { type Address, getAddress } from 'viem';
import { AppError, type FieldError, ValidationError } from '../base/errors.ts';
import { parseAddress } from '../chains/address.ts';
import type { Network } from '../chains/networks.ts';

export interface Payer {
  /** Sends the transactions (and grants allowances). */
  readonly wallet?: string | undefined;
  /** Holds the funds when `wallet` is a smart account; balances are read from it. */
  readonly eoaWallet?: string | undefined;
}

export const SMART_ACCOUNT_TRON_MESSAGE =
  'Smart-account payments (eoaWallet) are not supported on Tron';

/**
 * Payer wallets must be addresses of the network's kind; EVM ones come back checksummed. An
 * `eoaWallet` names the owner whose funds a smart account (`wallet`) spends, so it needs that
 * `wallet`; Tron has no such accounts.
 */
export function checkPayer(
  network: Pick<Network, 'kind'>,
  query: { wallet?: string | undefined; eoaWallet?: string | undefined },
): Payer {
  if (network.kind === 'tron' && query.eoaWallet !== undefined) {
    throw new AppError('smart_account_unsupported', SMART_ACCOUNT_TRON_MESSAGE);
  }
  const errors: FieldError[] = [];
  const check = (field: 'wallet' | 'eoaWallet', value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    const parsed = parseAddress(value, { kind: network.kind });
    if (parsed.ok) return parsed.address;
    errors.push({ field, message: parsed.message });
    return undefined;
  };
  const wallet = check('wallet', query.wallet);
  const eoaWallet = check('eoaWallet', query.eoaWallet);
  if (query.eoaWallet !== undefined && query.wallet === undefined) {
    errors.push({
      field: 'wallet',
      message: 'is required with eoaWallet (the smart account that executes the payment)',
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return { wallet, eoaWallet };
}

/**
 * The smart account (`wallet`) and the owner EOA whose tokens it spends (`eoaWallet`), when
 * the payer names both and they differ; null for a wallet that pays from its own balance.
 */
export function smartAccountOf(payer: Payer): { account: Address; owner: Address } | null {
  const { wallet, eoaWallet } = payer;
  if (wallet === undefined || eoaWallet === undefined) return null;
  if (wallet.toLowerCase() === eoaWallet.toLowerCase()) return null;
  return { account: getAddress(wallet), owner: getAddress(eoaWallet) };
}
