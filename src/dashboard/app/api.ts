/**
 * Calls to payreq's public API and auth API, as the signed-in merchant: the session is the
 * `session_token` cookie the auth API set (httpOnly, never read or kept here), sent with every
 * call. An answer that is not 2xx becomes an `ApiError` carrying the API's own message.
 */

/** One field's problem in a 400's `errors`. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export class ApiError extends Error {
  readonly status: number;
  /** The API's stable code (docs/errors.md), when it gave one. */
  readonly code: string | undefined;
  /** The fields a 400 named (`requests[2].payee`), each with its problem. */
  readonly fields: readonly FieldError[];

  constructor(
    status: number,
    message: string,
    code: string | undefined,
    fields: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

function fieldsOf(body: ErrorBody): FieldError[] {
  if (!Array.isArray(body.errors)) return [];
  return body.errors.flatMap((item: { field?: unknown; message?: unknown }) =>
    typeof item?.field === 'string' && typeof item.message === 'string'
      ? [{ field: item.field, message: item.message }]
      : [],
  );
}

interface ErrorBody {
  readonly message?: unknown;
  readonly code?: unknown;
  readonly errors?: unknown;
}

/**
 * What to tell the merchant of an error answer: its `errors` (each a sentence, or a fragment
 * about its field: "email must match format"), else its message, else its status.
 */
function describe(status: number, body: ErrorBody): string {
  const listed = Array.isArray(body.errors)
    ? body.errors.flatMap((item: { field?: unknown; message?: unknown }) => {
        if (typeof item?.message !== 'string') return [];
        // A fragment names no field ("must match format"); one that does is said as it is.
        const fragment =
          /^[a-z]/.test(item.message) &&
          typeof item.field === 'string' &&
          !item.message.startsWith(`${item.field} `);
        // An item of a list is named by its field alone (`amount`, not `requests[0].amount`).
        const field = typeof item.field === 'string' ? item.field.replace(/^\w+\[\d+\]\./, '') : '';
        return [fragment ? `${field} ${item.message}` : item.message];
      })
    : [];
  if (listed.length > 0) return listed.join('; ');
  return typeof body.message === 'string' ? body.message : `payreq answered ${status}`;
}

/** How long a call may take before the merchant is told payreq did not answer. */
const CALL_TIMEOUT_MS = 30_000;

const UNREACHABLE = 'payreq could not be reached: check your connection and try again';

/** The body as JSON; null for one that is not (a proxy's HTML error page). */
function jsonOf(text: string): { value: unknown } | null {
  if (text === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

/**
 * `GET base + path`, where some error statuses are answers too (a completed link's 409 carries
 * what it was paid): the status and the JSON of a 2xx or of one of `also`.
 */
export async function read<T>(
  base: string,
  path: string,
  also: readonly number[],
): Promise<{ readonly status: number; readonly body: T }> {
  const response = await send(base, path, {});
  const json = jsonOf(await textOf(response));
  if (!response.ok && !also.includes(response.status)) throw errorOf(response.status, json);
  if (json === null) throw noData(response.status);
  return { status: response.status, body: json.value as T };
}

/** `method` `base + path`, with `body` as JSON; the answer's JSON (undefined when empty). */
export async function call<T>(base: string, path: string, options: Options = {}): Promise<T> {
  const response = await send(base, path, options);
  const json = jsonOf(await textOf(response));
  if (!response.ok) throw errorOf(response.status, json);
  if (json === null) throw noData(response.status);
  return json.value as T;
}

interface Options {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly body?: unknown;
}

async function send(base: string, path: string, options: Options): Promise<Response> {
  try {
    return await fetch(base + path, {
      method: options.method ?? 'GET',
      credentials: 'include',
      headers: {
        accept: 'application/json',
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch {
    throw new ApiError(0, UNREACHABLE, undefined);
  }
}

async function textOf(response: Response): Promise<string> {
  try {
    return await response.text();
  } catch {
    throw new ApiError(0, UNREACHABLE, undefined);
  }
}

function errorOf(status: number, json: { value: unknown } | null): ApiError {
  const body = (json?.value ?? {}) as ErrorBody;
  return new ApiError(
    status,
    describe(status, body),
    typeof body.code === 'string' ? body.code : undefined,
    fieldsOf(body),
  );
}

function noData(status: number): ApiError {
  return new ApiError(status, `payreq answered ${status} with no data`, undefined);
}

/** What to tell the merchant of a failure: an `ApiError`'s or any error's message. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
