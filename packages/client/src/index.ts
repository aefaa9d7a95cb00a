import type { Client } from 'openapi-fetch';
import createFetchClient from 'openapi-fetch';
import type { components, paths } from './schema.ts';

/**
 * A typed client of payreq's HTTP API: every path, parameter, body and answer is typed from
 * the server's OpenAPI document (src/schema.ts, generated), and the calls are openapi-fetch's
 * (`GET`, `POST`, ... answering `{ data, error, response }`).
 *
 * ```ts
 * const payreq = createClient({ baseUrl: 'http://localhost:8080', apiKey });
 * const { data, error } = await payreq.GET('/v2/request/{requestId}', {
 *   params: { path: { requestId } },
 * });
 * ```
 */

/** Optional fields may be given as undefined (an unset environment variable): not sent then. */
export interface ClientOptions {
  /** Where payreq answers, e.g. `http://localhost:8080` (its BASE_URL). */
  readonly baseUrl: string;
  /** An account's server-side key: sent as `x-api-key`. */
  readonly apiKey?: string | undefined;
  /** A client ID: sent as `x-client-id` (with `orchestratorKey`, a partner acting for it). */
  readonly clientId?: string | undefined;
  /** A fee and branding partner's key: sent as `x-orchestrator-key`. */
  readonly orchestratorKey?: string | undefined;
  /** A signed-in user's `sessionToken`: sent as `Authorization: Bearer`. */
  readonly sessionToken?: string | undefined;
  /** Sent as `Origin`, for client IDs that allow only some origins. */
  readonly origin?: string | undefined;
  /** Other headers for every call. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** A fetch of your own (a proxy's, a test's); the global one by default. */
  readonly fetch?: ((request: Request) => Promise<Response>) | undefined;
}

export type PayreqClient = Client<paths>;

/** The credential headers the reference API defines (docs/guides/credentials.md). */
function credentialHeaders(options: ClientOptions): Record<string, string> {
  return {
    ...(options.apiKey !== undefined && { 'x-api-key': options.apiKey }),
    ...(options.clientId !== undefined && { 'x-client-id': options.clientId }),
    ...(options.orchestratorKey !== undefined && {
      'x-orchestrator-key': options.orchestratorKey,
    }),
    ...(options.sessionToken !== undefined && {
      authorization: `Bearer ${options.sessionToken}`,
    }),
    ...(options.origin !== undefined && { origin: options.origin }),
  };
}

export function createClient(options: ClientOptions): PayreqClient {
  return createFetchClient<paths>({
    baseUrl: options.baseUrl,
    headers: { ...options.headers, ...credentialHeaders(options) },
    ...(options.fetch !== undefined && { fetch: options.fetch }),
  });
}

/** The JSON body of an operation's answer with `status`. */
export type ResponseBody<
  Path extends keyof paths,
  Method extends keyof paths[Path],
  Status extends number,
> = paths[Path][Method] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** The JSON body an operation takes. */
export type RequestBody<
  Path extends keyof paths,
  Method extends keyof paths[Path],
> = paths[Path][Method] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

/** `POST /v2/secure-payments`: a payment link as created. */
export type SecurePaymentLink = ResponseBody<'/v2/secure-payments', 'post', 201>;
export type SecurePaymentInput = RequestBody<'/v2/secure-payments', 'post'>;
/** `GET /v2/secure-payments/{token}`: the link as the payer's page reads it. */
export type SecurePayment = ResponseBody<'/v2/secure-payments/{token}', 'get', 200>;
/** `POST /v2/request`: a request as created. */
export type CreatedRequest = ResponseBody<'/v2/request', 'post', 201>;
export type RequestInput = RequestBody<'/v2/request', 'post'>;
/** `GET /v2/request/{requestId}`: a request's status and payments. */
export type RequestStatus = components['schemas']['RequestStatus'];
/** `GET /v2/request/{requestId}/pay`: what the payer's wallet is asked to send. */
export type PaymentCalldata = ResponseBody<'/v2/request/{requestId}/pay', 'get', 200>;
export type Payment = components['schemas']['Payment'];
/** `POST /v2/payouts`: a payout's calldata. */
export type Payout = ResponseBody<'/v2/payouts', 'post', 201>;
export type Currency = components['schemas']['Currency'];
/** `POST /v1/webhook`: the endpoint's id and its signing secret, shown once. */
export type CreatedWebhook = ResponseBody<'/v1/webhook', 'post', 201>;
/** `GET /v1/webhook`: an endpoint, its secret masked. */
export type Webhook =
  ResponseBody<'/v1/webhook', 'get', 200> extends readonly (infer W)[] ? W : never;
/** Every error's body: `{ statusCode, message, error }`. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

export type { components, paths } from './schema.ts';
export * from './webhooks.ts';
