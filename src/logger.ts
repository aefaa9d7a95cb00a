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
  'headers["x-api-key"]',
  'headers["x-orchestrator-key"]',
  '*.apiKey',
  '*.orchestratorKey',
  '*.password',
  '*.secret',
  '*.sessionToken',
  '*.signingSecret',
  'apiKey',
  'orchestratorKey',
  'password',
  'secret',
];

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'payreq' },
  };
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
