import type { FieldError } from '../base/errors.ts';
import { ADDRESS_MESSAGES, parseAddress } from '../chains/address.ts';
import { parseAmount } from '../payments/amounts.ts';
import { FIAT_DECIMALS } from '../payments/calldata/conversion.ts';

/** The values of a fee config beyond what its schema checks: the USD cap and the recipients. */

/** A USD cap is held with the price feeds' 8 decimals, the unit fee amounts are computed in. */
export const USD_CAP_DECIMALS = FIAT_DECIMALS;

/** A decimal string of USD, greater than 0; undefined when not sent. */
export function parseUsdCap(value: string | undefined, errors: FieldError[]): bigint | undefined {
  if (value === undefined) return undefined;
  const parsed = parseAmount(value, USD_CAP_DECIMALS);
  if (parsed.ok) return parsed.value;
  errors.push({ field: 'usdCap', message: `${parsed.message} (USD)` });
  return undefined;
}

export interface Recipients {
  readonly evmRecipientAddress: string | null;
  readonly tronRecipientAddress: string | null;
}

/**
 * Each recipient through the one address parser (checksummed EVM, base58 Tron, never the zero
 * address), and at least one of them.
 */
export function parseRecipients(
  evm: string | null,
  tron: string | null,
  errors: FieldError[],
): Recipients {
  const read = (field: string, value: string | null, kind: 'evm' | 'tron'): string | null => {
    if (value === null) return null;
    const parsed = parseAddress(value, { kind });
    if (parsed.ok) return parsed.address;
    errors.push({ field, message: parsed.message });
    return null;
  };
  const recipients = {
    evmRecipientAddress: read('evmRecipientAddress', evm, 'evm'),
    tronRecipientAddress: read('tronRecipientAddress', tron, 'tron'),
  };
  if (evm === null && tron === null) {
    errors.push({
      field: 'evmRecipientAddress',
      message: `or tronRecipientAddress is required: a fee needs a recipient (${ADDRESS_MESSAGES.evm})`,
    });
  }
  return recipients;
}
