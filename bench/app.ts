import { randomBytes } from 'node:crypto';
import type { Transport } from 'viem';
import { systemClock } from '../src/base/clock.ts';
import { createKeyRing } from '../src/base/key-ring.ts';
import { createLogger } from '../src/base/logger.ts';
import { createSecretBox } from '../src/base/secret-box.ts';
import { createChainClients } from '../src/chains/clients.ts';
import type { NetworkId } from '../src/chains/networks.ts';
import { createChainRegistry } from '../src/chains/registry.ts';
import type { Config } from '../src/config/config.ts';
import type { DatabaseHandle } from '../src/db/client.ts';
import { buildApp } from '../src/server/app.ts';

/**
 * The real app over `database`, as the benches that call it in-process use it: silent, on the
 * system clock, with a secret key of its own; `transports` stand in for networks' RPC. With it,
 * the chain registry and clients it was built on.
 */
export async function benchApp(
  config: Config,
  database: DatabaseHandle,
  transports?: Partial<Record<NetworkId, Transport>>,
) {
  const chains = createChainRegistry(config);
  const clients = createChainClients({ config, chains, ...(transports && { transports }) });
  const { app } = await buildApp({
    config,
    chains,
    clients,
    database,
    logger: createLogger('silent'),
    clock: systemClock,
    secretBox: createSecretBox(randomBytes(32)),
    keyRing: createKeyRing({ defaultKey: randomBytes(32) }),
  });
  return { app, chains, clients };
}
