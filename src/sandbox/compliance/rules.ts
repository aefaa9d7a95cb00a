/**
 * The fake compliance provider's magic values (docs/guides/payers.md), so the sandbox can walk
 * every path without a control call: a KYC whose last name is `Reject` is rejected, `Retry`
 * asks for a retry (`incomplete`), any other is approved; a bank account numbered `000000000`
 * fails verification. An account with neither an account number nor an IBAN, or with a
 * malformed one, is refused outright (the provider's 400).
 */

export type Decision = 'approved' | 'rejected' | 'incomplete' | 'under_review';

export function magicDecision(input: Readonly<Record<string, unknown>>): Decision {
  if (input.last_name === 'Reject') return 'rejected';
  if (input.last_name === 'Retry') return 'incomplete';
  return 'approved';
}

export function accountRefusal(input: Readonly<Record<string, unknown>>): boolean {
  const number = input.account_number;
  const iban = input.iban;
  if (number === undefined && iban === undefined) return true;
  if (number !== undefined && (typeof number !== 'string' || !/^\d{4,17}$/.test(number)))
    return true;
  return (
    iban !== undefined &&
    (typeof iban !== 'string' || !/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban.replaceAll(' ', '')))
  );
}
