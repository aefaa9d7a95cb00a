import type { KeyRing } from '../base/key-ring.ts';

/**
 * The personal fields of a payer and of its bank accounts, sealed as one JSON document per row
 * (src/db/schema/payers.ts) under the key ring's current key, bound to the table and row id: a
 * document copied to another row does not open.
 */

export interface PayerPersonal {
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly beneficiaryType: 'individual' | 'business';
  readonly companyName?: string | undefined;
  readonly dateOfBirth: string;
  readonly addressLine1: string;
  readonly addressLine2?: string | undefined;
  readonly city: string;
  readonly state: string;
  readonly postcode: string;
  readonly country: string;
  readonly nationality: string;
  readonly phone: string;
  /** Never returned by any route. */
  readonly ssn: string;
  readonly sourceOfFunds?: string | undefined;
  readonly businessActivity?: string | undefined;
}

export interface PaymentDetailPersonal {
  readonly bankName: string;
  readonly accountName: string;
  readonly accountNumber?: string | undefined;
  readonly routingNumber?: string | undefined;
  readonly addressLine1: string;
  readonly addressLine2?: string | undefined;
  readonly city: string;
  readonly state?: string | undefined;
  readonly country: string;
  readonly dateOfBirth: string;
  readonly postalCode: string;
  readonly sortCode?: string | undefined;
  readonly iban?: string | undefined;
  readonly swiftBic?: string | undefined;
  /** Never returned by any route. */
  readonly documentNumber?: string | undefined;
  readonly documentType?: string | undefined;
  readonly accountType?: 'checking' | 'savings' | undefined;
  readonly ribNumber?: string | undefined;
  readonly bsbNumber?: string | undefined;
  readonly ncc?: string | undefined;
  readonly branchCode?: string | undefined;
  readonly bankCode?: string | undefined;
  readonly ifsc?: string | undefined;
}

export type SealedTable = 'payers' | 'payment_details';

/** What a row's personal document is bound to. */
export function sealContext(table: SealedTable, id: string): string {
  return `${table}:${id}`;
}

export function sealPersonal(
  keys: KeyRing,
  table: SealedTable,
  id: string,
  document: PayerPersonal | PaymentDetailPersonal,
): { personal: string; keyId: string } {
  return {
    personal: keys.seal(JSON.stringify(document), sealContext(table, id)),
    keyId: keys.currentId,
  };
}

export function openPayer(keys: KeyRing, id: string, sealed: string): PayerPersonal {
  return JSON.parse(keys.open(sealed, sealContext('payers', id))) as PayerPersonal;
}

export function openPaymentDetail(
  keys: KeyRing,
  id: string,
  sealed: string,
): PaymentDetailPersonal {
  return JSON.parse(keys.open(sealed, sealContext('payment_details', id))) as PaymentDetailPersonal;
}
