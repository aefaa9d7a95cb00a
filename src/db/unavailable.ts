/**
 * Whether an error means the database could not be reached, rather than that a statement was
 * wrong: the server refused or cut the connection (a restart, a failover), or no connection
 * came within the pool's wait. Such a failure is transient, so a caller is told 503 and to try
 * again, not 500. Drizzle wraps the driver's error in its own (`cause`), so the chain is walked.
 */

/** Errors of the socket under a connection. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
/** SQLSTATEs of a server going away: admin_shutdown, crash_shutdown, cannot_connect_now. */
const SHUTDOWN_STATES = new Set(['57P01', '57P02', '57P03']);
/** Class 08: connection exceptions. */
const CONNECTION_CLASS = '08';
/**
 * `pg` raises these without a code, so their text is all there is to tell them by: a
 * connection that ended under a query, one that errored before, and the pool's wait running out.
 */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error',
  'timeout exceeded when trying to connect',
];
const MAX_DEPTH = 5;

export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current instanceof Error; depth++) {
    const code = 'code' in current ? current.code : undefined;
    if (typeof code === 'string') {
      if (SOCKET_CODES.has(code) || SHUTDOWN_STATES.has(code)) return true;
      if (code.length === 5 && code.startsWith(CONNECTION_CLASS)) return true;
    }
    if (DRIVER_MESSAGES.some((message) => (current as Error).message.startsWith(message))) {
      return true;
    }
    current = current.cause;
  }
  return false;
}
