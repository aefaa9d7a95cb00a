import { Type } from 'typebox';
import { ValidationError } from '../base/errors.ts';
import type { CredentialKind } from '../http/principal.ts';

/**
 * `/v1|v2/payer` (api-facts §5; api-0.31-changes.md `PayerV1Controller_*`): the reference's
 * fields, rules and answers. Personal values are checked by the schema, whose messages name the
 * field and the rule, never the value.
 */

/** x-api-key only, as the reference: client IDs and sessions are refused. */
export const PAYER_AUTH: readonly CredentialKind[] = ['apiKey'];
export const PAYER_TAGS = ['Payer'];
export const PAYER_PREFIXES = ['/v2/payer', '/v1/payer'] as const;

const strict = { additionalProperties: false } as const;
const required = Type.String({ minLength: 1 });
const optional = Type.Optional(Type.String());
const date = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const countryCode = Type.String({ minLength: 2, maxLength: 2 });
const BeneficiaryType = Type.Enum(['individual', 'business']);

export const ClientUserIdParams = Type.Object({ clientUserId: Type.String() });

export const PayerBody = Type.Object(
  {
    clientUserId: required,
    email: Type.String({ format: 'email' }),
    firstName: required,
    lastName: required,
    beneficiaryType: BeneficiaryType,
    companyName: optional,
    dateOfBirth: date,
    addressLine1: required,
    addressLine2: optional,
    city: required,
    state: required,
    postcode: required,
    country: countryCode,
    nationality: countryCode,
    phone: Type.String({ pattern: '^\\+?[1-9]\\d{1,14}$' }),
    ssn: required,
    sourceOfFunds: optional,
    businessActivity: optional,
  },
  strict,
);

const PublicStatus = Type.Enum(['not_started', 'completed']);

export const PayerCreated = Type.Object({
  agreementUrl: Type.String({ format: 'uri' }),
  kycUrl: Type.String({ format: 'uri' }),
  status: Type.Object({ agreementStatus: PublicStatus, kycStatus: PublicStatus }),
  userId: Type.String({ format: 'uuid' }),
});

export const PayerStatus = Type.Object({
  kycStatus: Type.String({
    description: 'not_started, initiated, pending, approved, rejected, retry_required or failed',
  }),
  agreementStatus: Type.String({
    description: 'not_started, pending, completed, rejected or failed',
  }),
  isCompliant: Type.Boolean(),
  userId: Type.String(),
});

export const AgreementBody = Type.Object(
  { agreementCompleted: Type.Optional(Type.Boolean()) },
  { ...strict, description: '`agreementCompleted` is required' },
);

export const Success = Type.Object({ success: Type.Boolean() });

export const PaymentDetailsBody = Type.Object(
  {
    bankName: required,
    accountName: required,
    accountNumber: optional,
    routingNumber: optional,
    beneficiaryType: BeneficiaryType,
    currency: Type.String({ minLength: 3, maxLength: 3 }),
    addressLine1: required,
    addressLine2: optional,
    city: required,
    state: optional,
    country: countryCode,
    dateOfBirth: date,
    postalCode: required,
    rails: Type.Optional(Type.Enum(['local', 'swift', 'wire'], { default: 'local' })),
    sortCode: optional,
    iban: optional,
    swiftBic: optional,
    documentNumber: optional,
    documentType: optional,
    accountType: Type.Optional(Type.Enum(['checking', 'savings'])),
    ribNumber: optional,
    bsbNumber: optional,
    ncc: optional,
    branchCode: optional,
    bankCode: optional,
    ifsc: optional,
  },
  strict,
);

export const PaymentDetailCreated = Type.Object({
  payment_detail: Type.Object({
    id: Type.String(),
    clientUserId: Type.String(),
    bankName: Type.String(),
    accountName: Type.String(),
    currency: Type.String(),
    beneficiaryType: BeneficiaryType,
  }),
});

export const PaymentDetailsQuery = Type.Object(
  { paymentDetailsId: Type.Optional(Type.String()) },
  strict,
);

export const PaymentDetailsList = Type.Object({
  paymentDetails: Type.Array(
    Type.Object({
      id: Type.String(),
      userId: Type.String(),
      bankName: Type.String(),
      accountName: Type.String(),
      beneficiaryType: Type.String(),
      accountNumber: Type.String({ description: 'Empty when the account has none (IBAN only)' }),
      routingNumber: Type.String({ description: 'Empty when the account has none' }),
      currency: Type.String(),
      status: Type.String({ description: 'pending, approved or failed' }),
      rails: Type.String(),
    }),
  ),
});

/**
 * `dateOfBirth` beyond its pattern: a day of the calendar (no 1990-13-45, no 2023-02-29), not
 * after today (UTC). The message names the rule, never the value.
 */
export function checkBirthDate(value: string, now: Date): void {
  const [year, month, day] = value.split('-').map(Number);
  const parsed = new Date(Date.UTC(year ?? 0, (month ?? 0) - 1, day ?? 0));
  const real =
    parsed.getUTCFullYear() === year &&
    parsed.getUTCMonth() + 1 === month &&
    parsed.getUTCDate() === day;
  const today = now.toISOString().slice(0, 10);
  if (!real || value > today) {
    throw new ValidationError([
      { field: 'dateOfBirth', message: 'must be a valid date (YYYY-MM-DD), not in the future' },
    ]);
  }
}
