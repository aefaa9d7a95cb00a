/**
 * Domain errors. Each carries a stable machine `code`; the code decides the HTTP status (the
 * table below; a code in ALTERNATE_STATUS has a second one for a second cause), and the one
 * Fastify error handler turns the error into the `{statusCode, message, error}` envelope.
 * Messages are short and safe to show a caller. Every code is listed in docs/errors.md under
 * its status (or both); a test keeps the two in step.
 */

export const ERROR_STATUS = {
  // 400: the input is wrong; nothing was written.
  validation_failed: 400,
  invalid_json: 400,
  empty_body: 400,
  bad_request: 400,
  bad_url: 400,
  invalid_redirect_url: 400,
  redirect_label_without_url: 400,
  invalid_redirect_label: 400,
  tron_batch_not_supported: 400,
  mixed_networks: 400,
  invalid_destination_id: 400,
  unknown_destination: 400,
  no_matching_destination: 400,
  ambiguous_destination: 400,
  destination_inactive: 400,
  invalid_nonce: 400,
  wrong_action: 400,
  invalid_signature: 400,
  signature_mismatch: 400,
  crosschain_unavailable: 400,
  crosschain_route_gone: 400,
  safe_not_supported: 400,
  smart_account_unsupported: 400,
  smart_account_native_unsupported: 400,
  not_a_safe: 400,
  invalid_cursor: 400,
  request_paid: 400,
  client_id_revoked: 400,
  wallet_session_required: 400,
  network_not_supported: 400,
  batch_not_supported: 400,
  conversion_route_unavailable: 400,
  feature_unavailable: 400,
  batch_fee_addresses_differ: 400,
  tron_link_required: 400,
  tron_transaction_mismatch: 400,
  unknown_payout_link: 400,
  not_single_payout: 400,
  payout_link_not_pending: 400,
  payout_networks_differ: 400,
  payout_creators_differ: 400,
  payout_link_in_multicall: 400,
  multicall_validation_failed: 400,
  request_not_recurring: 400,
  recurring_payout_unsupported: 400,
  recurring_payout_already_active: 400,
  recurring_payout_cancelled: 400,
  recurring_payout_completed: 400,
  recurring_payout_not_paused: 400,
  invalid_action: 400,
  unsupported_fee_currency: 400,
  commerce_unavailable: 400,
  commerce_operator_missing: 400,
  commerce_buyer_missing: 400,
  commerce_buyer_mismatch: 400,
  signed_transaction_required: 400,
  signed_transaction_mismatch: 400,
  invalid_bank_account: 400,
  kyc_submission_refused: 400,
  crypto_to_fiat_not_allowed: 400,
  payer_not_compliant: 400,
  payment_details_not_usable: 400,
  invalid_idempotency_key: 400,
  // 401: no usable credential.
  missing_credentials: 401,
  invalid_api_key: 401,
  revoked_api_key: 401,
  invalid_client_id: 401,
  invalid_orchestrator_key: 401,
  revoked_orchestrator_key: 401,
  invalid_session: 401,
  session_expired: 401,
  sign_in_refused: 401,
  login_refused: 401,
  invalid_callback_signature: 401,
  invalid_offramp_signature: 401,
  // 403: a valid credential that may not do this.
  credential_not_accepted: 403,
  inactive_client_id: 403,
  revoked_client_id: 403,
  origin_required: 403,
  origin_not_allowed: 403,
  client_id_not_linked: 403,
  client_id_not_bound: 403,
  client_id_mismatch: 403,
  destination_mismatch: 403,
  commerce_not_payer: 403,
  commerce_client_id_cannot_sign: 403,
  secure_payment_expired: 403,
  secure_payment_invalidated: 403,
  secure_payment_compliance_failed: 403,
  payout_wallet_mismatch: 403,
  payer_not_allowed: 403,
  payer_screening_rejected: 403,
  payer_screening_unavailable: 403,
  session_wallet_mismatch: 403,
  recurring_payer_mismatch: 403,
  multicall_not_executable: 403,
  // 404
  route_not_found: 404,
  request_not_found: 404,
  secure_payment_not_found: 404,
  token_not_found: 404,
  currency_not_found: 404,
  destination_not_found: 404,
  no_active_destination: 404,
  client_id_not_found: 404,
  api_key_not_found: 404,
  link_not_found: 404,
  branding_not_found: 404,
  orchestrator_not_linked: 404,
  webhook_not_found: 404,
  delivery_not_found: 404,
  original_request_not_found: 404,
  recurring_payout_not_found: 404,
  wallet_change_not_found: 404,
  transaction_not_found: 404,
  fee_config_not_found: 404,
  link_intent_not_found: 404,
  journey_not_found: 404,
  commerce_payment_not_found: 404,
  payer_not_found: 404,
  payer_user_not_found: 404,
  payment_details_not_found: 404,
  offramp_transfer_not_found: 404,
  // 409
  secure_payment_completed: 409,
  client_id_linked_elsewhere: 409,
  client_id_unlinked: 409,
  fee_config_exists: 409,
  email_taken: 409,
  delivery_in_flight: 409,
  webhook_url_taken: 409,
  journey_limit_reached: 409,
  transfer_recorded_elsewhere: 409,
  offramp_deposit_not_seen: 409,
  commerce_not_authorized: 409,
  commerce_already_authorized: 409,
  commerce_not_preapproved: 409,
  commerce_preapproval_expired: 409,
  commerce_authorization_expired: 409,
  commerce_capture_exceeds_capturable: 409,
  commerce_nothing_to_void: 409,
  commerce_nothing_to_reclaim: 409,
  commerce_authorization_not_expired: 409,
  commerce_already_voided: 409,
  commerce_not_captured: 409,
  commerce_refund_exceeds_refundable: 409,
  commerce_refund_expired: 409,
  commerce_action_in_flight: 409,
  commerce_refund_unfunded: 409,
  commerce_request_not_directly_payable: 409,
  idempotency_key_in_use: 409,
  // 422: an Idempotency-Key sent again with another request.
  idempotency_key_reused: 422,
  // 423: a payer's Safe transaction for the link is being tracked.
  secure_payment_in_progress: 423,
  // 410: an operation the reference API removed.
  payment_intents_removed: 410,
  orchestrator_exists: 409,
  branding_exists: 409,
  // 410: a link intent that was used or has expired.
  link_intent_used: 410,
  link_intent_expired: 410,
  // 405, 408, 413, 414, 415, 417, 431
  method_not_allowed: 405,
  request_timeout: 408,
  body_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  expectation_failed: 417,
  headers_too_large: 431,
  // 429
  rate_limited: 429,
  // 5xx
  internal_error: 500,
  crosschain_route_refused: 502,
  tron_broadcast_refused: 502,
  tron_node_unreachable: 502,
  commerce_transaction_failed: 502,
  compliance_provider_failed: 502,
  offramp_refused: 502,
  chain_unavailable: 503,
  chain_rpc_failed: 503,
  database_unavailable: 503,
  networks_not_ready: 503,
  shutting_down: 503,
  server_busy: 503,
  pay_page_not_built: 503,
  dashboard_not_built: 503,
  compliance_provider_missing: 503,
  offramp_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Codes whose name a caller already matches on for one cause, answered with another status for
 * a second cause of the same name. `crosschain_unavailable`: 400 where a cross-chain feature is
 * not built (the caller must change the request), 503 while the routing aggregator fails (the
 * same request may succeed later). A second code would split one condition, "no cross-chain
 * route from here", in two for clients.
 */
export const ALTERNATE_STATUS = {
  crosschain_unavailable: 503,
} as const satisfies Partial<Record<ErrorCode, number>>;

type AlternateCode = keyof typeof ALTERNATE_STATUS;

interface AppErrorOptions {
  errors?: readonly FieldError[];
  headers?: Record<string, string>;
  details?: Record<string, unknown>;
  /** What went wrong underneath, for the log; never sent. */
  cause?: unknown;
}

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** The longest field name an error echoes: names may come from the caller's own keys. */
const MAX_FIELD_LENGTH = 128;

export function boundedField(name: string): string {
  return name.length > MAX_FIELD_LENGTH ? `${name.slice(0, MAX_FIELD_LENGTH)}…` : name;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: readonly FieldError[] | undefined;
  /** Response headers the error needs (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Extra members of the body beside the envelope's, where the reference API has them. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }

  /** The HTTP status its code maps to. */
  get statusCode(): number {
    return ERROR_STATUS[this.code];
  }
}

/** An error answered with its code's second status (ALTERNATE_STATUS), not the table's. */
export class AlternateStatusError extends AppError {
  readonly #status: number;

  constructor(code: AlternateCode, message: string, options: AppErrorOptions = {}) {
    super(code, message, options);
    this.#status = ALTERNATE_STATUS[code];
  }

  override get statusCode(): number {
    return this.#status;
  }
}

export const VALIDATION_FAILED = 'Validation failed';

/**
 * A field of the reference API whose feature is not built here yet, sent with a value that
 * would change the outcome (`isCryptoToFiatAvailable: false` is fine, `true` is not).
 */
export function featureUnavailable(feature: string): AppError {
  return new AppError('feature_unavailable', `${feature}: not available on this server yet`);
}

/** Input that breaks a rule (the schema's or one beyond it): 400 with one entry per field. */
export class ValidationError extends AppError {
  constructor(errors: readonly FieldError[]) {
    super('validation_failed', VALIDATION_FAILED, { errors });
  }
}
