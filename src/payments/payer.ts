import { type FieldError, ValidationError } from '../base/errors.ts';
import { parseAddress } from '../chains/address.ts';
import type { Network } from '../chains/networks.ts';

export interface Payer {
  /** Sends the transactions (and grants allowances). */
  readonly wallet?: string | undefined;
  /** Holds the funds when `wallet` is a smart account; balances are read from it. */
  readonly eoaWallet?: string | undefined;
}

/** Payer wallets must be addresses of the network's kind; EVM ones come back checksummed. */
export function checkPayer(
  network: Pick<Network, 'kind'>,
  query: { wallet?: string | undefined; eoaWallet?: string | undefined },
): Payer {
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
  if (errors.length > 0) throw new ValidationError(errors);
  return { wallet, eoaWallet };
}
