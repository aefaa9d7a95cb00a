import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilent, Logger } from 'pino';

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger that becomes a real pino child only when it first writes a line. Fastify
 * makes a child per request (to bind `reqId`), and pino builds each child's bindings through the
 * redaction paths: a few microseconds on every request, for a logger most requests never write
 * to at `warn`. The child it makes is the one Fastify would have made.
 */
class RequestLogger {
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #write(method: LogMethod, args: unknown[]): void {
    // Below the level nothing is written, so no child is needed to write it.
    if (this.#child === undefined && !this.#parent.isLevelEnabled(method)) return;
    (this.#real()[method] as (...rest: unknown[]) => void)(...args);
  }

  get level(): LevelWithSilent | string {
    return this.#child?.level ?? this.#parent.level;
  }

  set level(level: LevelWithSilent | string) {
    this.#real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.#child === undefined
      ? this.#parent.isLevelEnabled(level)
      : ((this.#child as Logger).isLevelEnabled?.(level) ?? true);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}
}

/** Fastify's `childLoggerFactory`: a request's child logger, made when first written to. */
export function lazyRequestLogger(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // A route with a level of its own (none today) gets its child at once: its level decides.
  if (options.level !== undefined) return logger.child(bindings, options);
  // The app's logger is pino's (buildApp's loggerInstance), which tells whether a level is on.
  return new RequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
