import type { Logger } from 'pino';
import { createLogger } from './base/logger.ts';
import { StartError } from './base/start-error.ts';
import { type Config, ConfigError, parseConfig } from './config/config.ts';
import { createService, type Service } from './service.ts';

// The process: read the environment, start the service (src/service.ts), stop it on a signal.

/**
 * SIGTERM/SIGINT: drain, stop gracefully, and exit non-zero if that takes longer than
 * `SHUTDOWN_TIMEOUT_MS`.
 */
export function stopOnSignals(service: Service, config: Config, logger: Logger): void {
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal, drainMs: config.shutdown.drainMs }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdown.timeoutMs);
    timer.unref();
    service.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

/** Reads the environment once; bad settings end the process with one line naming the variable. */
export function configFromEnvironment(): Config {
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`payreq: invalid configuration: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}

/** The port cannot be had: one line naming it and the fix, rather than a stack. */
function listenError(error: unknown, config: Config): StartError | null {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  const where = `port ${config.port} on ${config.host}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartError(
        `${where} is in use (another payreq, or another server); stop it, or set PORT to a free port`,
        { cause: error },
      );
    case 'EACCES':
      return new StartError(
        `not allowed to listen on ${where}; set PORT to 1024 or above, or run with the right to bind it`,
        { cause: error },
      );
    case 'EADDRNOTAVAIL':
      return new StartError(
        `cannot listen on ${config.host}: not an address of this machine; set HOST (127.0.0.1, or 0.0.0.0 for every interface)`,
        { cause: error },
      );
    default:
      return null;
  }
}

export async function serve(): Promise<void> {
  const config = configFromEnvironment();
  const logger = createLogger(config.logLevel);
  let service: Service | undefined;
  try {
    service = await createService(config, logger);
    stopOnSignals(service, config, logger);
    await service.listen();
  } catch (error) {
    await service?.stop().catch(() => {});
    const startError = error instanceof StartError ? error : listenError(error, config);
    if (error instanceof ConfigError) {
      console.error(`payreq: invalid configuration: ${error.message}`);
    } else if (startError) {
      // One line, the cause and the fix, for the operator: no JSON, no stack.
      console.error(`payreq: ${startError.message}`);
    } else {
      logger.fatal({ err: error }, 'could not start');
    }
    process.exit(1);
  }
}

if (import.meta.main) await serve();
