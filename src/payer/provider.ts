import type { ComplianceConfig } from '../config/compliance.ts';

/**
 * The compliance provider's REST API, over HTTP (docs/guides/payers.md): customers with their
 * KYC data, the hosted KYC and terms-of-service links, the terms' acceptance and the
 * customers' external bank accounts. Its verdicts come later, to our callback route
 * (callbacks.ts). Errors never carry what was sent (it is personal) nor the provider's own
 * message (it may quote it): only the operation and the status.
 */

export type ProviderKycStatus =
  | 'not_started'
  | 'under_review'
  | 'incomplete'
  | 'approved'
  | 'rejected';
export type ProviderTosStatus = 'pending' | 'approved';
export type ProviderAccountStatus = 'pending' | 'approved' | 'failed';

interface ProviderAddress {
  readonly street_line_1: string;
  readonly street_line_2?: string | undefined;
  readonly city: string;
  readonly subdivision?: string | undefined;
  readonly postal_code: string;
  readonly country: string;
}

export interface ProviderCustomerInput {
  readonly type: 'individual' | 'business';
  readonly first_name: string;
  readonly last_name: string;
  readonly business_name?: string | undefined;
  readonly email: string;
  readonly phone: string;
  readonly birth_date: string;
  readonly nationality: string;
  readonly tax_identification_number: string;
  readonly address: ProviderAddress;
  readonly source_of_funds?: string | undefined;
  readonly business_activity?: string | undefined;
}

interface ProviderCustomer {
  readonly id: string;
  readonly kyc_status: ProviderKycStatus;
  readonly tos_status: ProviderTosStatus;
}

export interface ProviderAccountInput {
  readonly bank_name: string;
  readonly account_owner_name: string;
  readonly account_owner_type: 'individual' | 'business';
  readonly currency: string;
  readonly rails: 'local' | 'swift' | 'wire';
  readonly account_type?: 'checking' | 'savings' | undefined;
  readonly account_number?: string | undefined;
  readonly routing_number?: string | undefined;
  readonly iban?: string | undefined;
  readonly swift_bic?: string | undefined;
  readonly sort_code?: string | undefined;
  /** The rest of the bank codes some countries use (RIB, BSB, NCC, branch, bank, IFSC). */
  readonly bank_codes?: Readonly<Record<string, string>> | undefined;
  readonly owner_birth_date: string;
  readonly owner_document?:
    | { readonly number: string; readonly type?: string | undefined }
    | undefined;
  readonly address: ProviderAddress;
}

interface ProviderAccount {
  readonly id: string;
  readonly customer_id: string;
  readonly status: ProviderAccountStatus;
}

export interface ComplianceProvider {
  createCustomer(input: ProviderCustomerInput, idempotencyKey: string): Promise<ProviderCustomer>;
  updateCustomer(id: string, input: ProviderCustomerInput): Promise<ProviderCustomer>;
  /** The hosted KYC and terms-of-service pages for the customer. */
  links(id: string): Promise<{ readonly kycUrl: string; readonly tosUrl: string }>;
  acceptTerms(id: string): Promise<ProviderCustomer>;
  /** Deletes the customer, its data and its bank accounts at the provider; a 404 is done. */
  deleteCustomer(id: string): Promise<void>;
  createAccount(
    customerId: string,
    input: ProviderAccountInput,
    idempotencyKey: string,
  ): Promise<ProviderAccount>;
}

/** A 4xx: the provider refuses what was sent; asking again will not help. */
export class ProviderRefusal extends Error {
  override readonly name = 'ProviderRefusal';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Unreachable, slow, 5xx or an answer we cannot read. */
export class ProviderFailure extends Error {
  override readonly name = 'ProviderFailure';
}

/**
 * The 4xx that say "not now" rather than "no": the request timed out (408), too early (425),
 * too many (429). Taken as a refusal, a first KYC submission would be dropped while the
 * provider may have created its customer. (A 409 stays a refusal: a key sent again with other
 * data is one, and the payer's next submission must get a fresh key.)
 */
const AGAIN_LATER = new Set([408, 425, 429]);

const KYC = ['not_started', 'under_review', 'incomplete', 'approved', 'rejected'];
const TOS = ['pending', 'approved'];
const ACCOUNT = ['pending', 'approved', 'failed'];

export function createComplianceProvider(
  config: ComplianceConfig & { readonly url: string },
  fetcher: typeof fetch = fetch,
): ComplianceProvider {
  async function call(
    operation: string,
    method: string,
    path: string,
    body?: unknown,
    idempotency?: string,
  ): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (config.apiKey !== null) headers['api-key'] = config.apiKey.reveal();
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotency !== undefined) headers['idempotency-key'] = idempotency;
    let response: Response;
    let text: string;
    try {
      response = await fetcher(`${config.url}${path}`, {
        method,
        headers,
        redirect: 'error',
        signal: AbortSignal.timeout(config.timeoutMs),
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      text = await response.text();
    } catch (error) {
      throw new ProviderFailure(`compliance provider ${operation}: could not be reached`, {
        cause: error instanceof Error ? error.name : 'error',
      });
    }
    if (response.status >= 400 && response.status < 500 && !AGAIN_LATER.has(response.status)) {
      throw new ProviderRefusal(
        response.status,
        `compliance provider ${operation}: refused (HTTP ${response.status})`,
      );
    }
    if (response.status < 200 || response.status >= 300) {
      throw new ProviderFailure(`compliance provider ${operation}: HTTP ${response.status}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ProviderFailure(`compliance provider ${operation}: answered no JSON`);
    }
  }
  const customer = (json: unknown): ProviderCustomer => {
    const value = record(json);
    const id = value.id;
    const kyc = value.kyc_status;
    const tos = value.tos_status;
    if (typeof id !== 'string' || !KYC.includes(String(kyc)) || !TOS.includes(String(tos))) {
      throw new ProviderFailure('compliance provider: unexpected customer answer');
    }
    return { id, kyc_status: kyc as ProviderKycStatus, tos_status: tos as ProviderTosStatus };
  };
  const base = (id: string) => `/v0/customers/${encodeURIComponent(id)}`;
  return {
    createCustomer: async (input, key) =>
      customer(await call('create customer', 'POST', '/v0/customers', input, key)),
    updateCustomer: async (id, input) =>
      customer(await call('update customer', 'PUT', base(id), input)),
    links: async (id) => {
      const value = record(await call('create links', 'POST', `${base(id)}/kyc_links`, {}));
      const kycUrl = httpUrl(value.kyc_link);
      const tosUrl = httpUrl(value.tos_link);
      if (kycUrl === null || tosUrl === null) {
        throw new ProviderFailure('compliance provider: unexpected links answer');
      }
      return { kycUrl, tosUrl };
    },
    acceptTerms: async (id) =>
      customer(await call('accept terms', 'POST', `${base(id)}/tos_acceptance`, {})),
    deleteCustomer: async (id) => {
      try {
        await call('delete customer', 'DELETE', base(id));
      } catch (error) {
        if (error instanceof ProviderRefusal && error.status === 404) return;
        throw error;
      }
    },
    createAccount: async (customerId, input, key) => {
      const value = record(
        await call(
          'create external account',
          'POST',
          `${base(customerId)}/external_accounts`,
          input,
          key,
        ),
      );
      if (typeof value.id !== 'string' || !ACCOUNT.includes(String(value.status))) {
        throw new ProviderFailure('compliance provider: unexpected external account answer');
      }
      return {
        id: value.id,
        customer_id: customerId,
        status: value.status as ProviderAccountStatus,
      };
    },
  };
}

function record(json: unknown): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ProviderFailure('compliance provider: answer is not an object');
  }
  return json as Record<string, unknown>;
}

function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
