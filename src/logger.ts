import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { LogLevel } from './config.ts';

/**
 * Credentials never reach the log: the headers and body fields that carry them are censored
 * wherever they appear in a logged object.
 */
export const REDACTED_PATHS = [
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

/** Errors are logged with their message, stack and causes, every URL in them cut to its host. */
function serializeError(error: unknown): unknown {
  return scrubbed(pino.stdSerializers.err(error as Error));
}

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    serializers: { err: serializeError },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'payreq' },
  };
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
