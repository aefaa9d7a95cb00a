import pino, {
  type DestinationStream,
  type LevelWithSilent,
  type Logger,
  type LoggerOptions,
} from 'pino';

/**
 * Credentials never reach the log: the headers and body fields that carry them are censored
 * wherever they appear in a logged object.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-orchestrator-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'headers["x-api-key"]',
  'headers["x-orchestrator-key"]',
  'req.headers["x-client-id"]',
  'headers["x-client-id"]',
  '*.apiKey',
  '*.orchestratorKey',
  '*.password',
  '*.secret',
  '*.sessionToken',
  '*.signingSecret',
  // A signed sign-in challenge is a credential until it is used.
  '*.signature',
  'apiKey',
  'orchestratorKey',
  'password',
  'secret',
  'sessionToken',
  'signature',
  // A relayer's key, should one ever be put in a logged object.
  'privateKey',
  '*.privateKey',
  // A session principal carries the raw token it was presented with (for logout).
  'principal.token',
  '*.principal.token',
];

const URL_PATTERN = /\b(?:https?|wss?|postgres(?:ql)?|redis):\/\/[^\s"'<>]+/gi;

/**
 * URLs in error text keep only their scheme and host: RPC providers put API keys in the path or
 * the query (and some users put passwords before the host), and viem quotes the whole URL.
 */
export function scrubUrls(text: string): string {
  return text.replace(URL_PATTERN, (match) => {
    try {
      const url = new URL(match);
      const rest = url.pathname !== '/' || url.search !== '' ? '/…' : '';
      return `${url.protocol}//${url.host}${rest}`;
    } catch {
      return '[url]';
    }
  });
}

function scrubbed(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubUrls(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubbed(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, scrubbed(v, depth + 1)]));
}

/**
 * Errors are logged with their message, stack and causes, every URL in them cut to its host;
 * a database error only by what it was doing and why it failed (see `databaseError`).
 */
function serializeError(error: unknown): unknown {
  return databaseError(error) ?? scrubbed(pino.stdSerializers.err(error as Error));
}

interface DatabaseFailure {
  readonly query?: unknown;
  readonly params?: unknown;
  readonly severity?: unknown;
  readonly code?: unknown;
  readonly constraint?: unknown;
  readonly table?: unknown;
  readonly column?: unknown;
  readonly routine?: unknown;
  readonly cause?: unknown;
}

/** drizzle's wrapper (query + params) or the driver's own error (pg and PGlite: a severity). */
function isDatabaseFailure(value: unknown): value is DatabaseFailure & Error {
  if (!(value instanceof Error)) return false;
  const failure = value as DatabaseFailure;
  return (
    (typeof failure.query === 'string' && Array.isArray(failure.params)) ||
    (typeof failure.severity === 'string' && typeof failure.code === 'string')
  );
}

/**
 * A database error names the rows it failed on: drizzle's message and the drivers' `params`
 * carry every value of the statement (customer names, e-mails, key prefixes and hashes), and
 * Postgres' `detail` and `where` quote row values. So only the statement's purpose (its verb
 * and table), the SQLSTATE code and the constraint, table and column are logged, with the
 * stack's frames; never the parameters or any row value.
 */
function databaseError(error: unknown): Record<string, unknown> | null {
  const chain: (DatabaseFailure & Error)[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (isDatabaseFailure(current)) chain.push(current);
    current = (current as DatabaseFailure).cause;
  }
  if (chain.length === 0) return null;
  const query = chain.map((failure) => failure.query).find((q) => typeof q === 'string');
  const driver = chain.find((failure) => typeof failure.severity === 'string') ?? chain[0];
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const purpose = typeof query === 'string' ? statementPurpose(query) : 'a database statement';
  const frames = (error as Error).stack
    ?.split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .join('\n');
  return {
    type: 'DatabaseError',
    message: `database error during ${purpose}`,
    purpose,
    code: text(driver?.code),
    constraint: text(driver?.constraint),
    table: text(driver?.table),
    column: text(driver?.column),
    routine: text(driver?.routine),
    stack: frames,
  };
}

/** `insert into "requests" (…) values ($1, …)` → `insert into requests`: verb and table only. */
export function statementPurpose(query: string): string {
  const sql = query.replace(/\s+/g, ' ').trim();
  const name = '"?([A-Za-z0-9_.]+)"?';
  const patterns: [RegExp, string][] = [
    [new RegExp(`^insert into ${name}`, 'i'), 'insert into'],
    [new RegExp(`^update ${name}`, 'i'), 'update'],
    [new RegExp(`^delete from ${name}`, 'i'), 'delete from'],
    [new RegExp(`^select .*? from ${name}`, 'i'), 'select from'],
  ];
  for (const [pattern, verb] of patterns) {
    const table = pattern.exec(sql)?.[1];
    if (table) return `${verb} ${table}`;
  }
  return sql.split(' ')[0]?.toLowerCase() ?? 'a statement';
}

/**
 * Path segments after which a capability comes: a link's token, a recurring payout's, a link
 * intent's page (`<PAY_URL>/link/{accessToken}`).
 */
const BEFORE_CAPABILITY = new Set(['secure-payments', 'multicall-payouts', 'token', 'link']);
/**
 * Pairs of segments after which a client ID's `cli_…` value comes
 * (`/v2/orchestrators/client-ids/{clientId}`): a backend client ID is a credential; and a link
 * intent's access token (`/v1/client-id-links/intents/{token}`), a capability. Paths that
 * carry a client ID's row id (`/v2/client-ids/{id}`) name no secret and stay readable.
 */
const BEFORE_CLIENT_ID = new Set(['orchestrators/client-ids', 'client-id-links/intents']);
/** Routes under those names, not tokens. */
const ROUTE_WORDS = new Set(['payouts', 'batch-payouts', 'multicall-payouts']);

/**
 * A request's URL as its log lines show it. A link's token (and a recurring payout's) is a
 * capability: whoever reads it can open the link; a backend client ID is a credential. Query values name wallets, references and
 * tokens (`/?token=`). So those path segments and every query value are masked; the route and
 * the query's names stay, for reading the log.
 */
export function loggedUrl(url: string): string {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const segments = path.split('/');
  // Compared as the router reads them: decoded (`secure%2Dpayments` is `secure-payments`), and
  // past empty segments.
  let previous = '';
  let beforePrevious = '';
  for (let i = 1; i < segments.length; i++) {
    const segment = decodedSegment(segments[i] ?? '');
    if (segment === '') continue;
    if (BEFORE_CAPABILITY.has(previous) && !ROUTE_WORDS.has(segment)) segments[i] = '…';
    if (BEFORE_CLIENT_ID.has(`${beforePrevious}/${previous}`)) segments[i] = '…';
    beforePrevious = previous;
    previous = segment;
  }
  if (mark === -1) return segments.join('/');
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals === -1 || equals === pair.length - 1 ? pair : `${pair.slice(0, equals)}=…`;
    });
  return `${segments.join('/')}?${query.join('&')}`;
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Fastify's request serializer, with the URL as `loggedUrl` shows it. Other objects logged as
 * `req` pass through as they are (and through the redaction paths).
 */
function serializeRequest(request: {
  raw?: unknown;
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}) {
  if (request?.raw === undefined) return request;
  return {
    method: request.method,
    url: request.url === undefined ? undefined : loggedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

function loggerOptions(level: LevelWithSilent): LoggerOptions {
  return {
    level,
    serializers: { err: serializeError, req: serializeRequest },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'payreq' },
  };
}

export function createLogger(level: LevelWithSilent, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
