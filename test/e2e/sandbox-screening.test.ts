import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/base/clock.ts';
import { createLogger } from '../../src/base/logger.ts';
import { createChainRegistry } from '../../src/chains/registry.ts';
import { activateDestination } from '../../src/destinations/destinations.ts';
import { resolveTarget } from '../../src/destinations/target.ts';
import { sandboxWallets } from '../../src/sandbox/addresses.ts';
import { sandboxNetwork } from '../../src/sandbox/network.ts';
import { createService, type Service } from '../../src/service.ts';
import { LogCapture, testConfig } from '../app.ts';
import { createTenant, type Tenant } from '../fixtures.ts';
import { copyMigratedDatabase } from '../process.ts';

/**
 * `npm start`'s sandbox screens payers with nothing else running: with no SCREENING_*_URL it
 * starts its fake providers (real HTTP on loopback) and points both at them, where one
 * well-known address is sanctioned. A link that screens its payers refuses that address and
 * serves a test wallet.
 */

const SANCTIONED = '0x000000000000000000000000000000000000dEaD';

let service: Service;
let tenant: Tenant;
let destinationId: string;
const logs = new LogCapture();

beforeAll(async () => {
  const config = testConfig({
    SANDBOX: 'true',
    PORT: '0',
    HOST: '127.0.0.1',
    SANDBOX_IDLE_BLOCK_MS: '0',
    WORKERS: 'false',
  });
  copyMigratedDatabase(config.dataDir);
  service = await createService(config, createLogger('info', logs));
  tenant = await createTenant(service.database.db, 'Sandbox merchant');
  const chains = createChainRegistry(config, [sandboxNetwork(config.baseUrl)]);
  const usdc = chains.currency('USDC-sandbox');
  const payee = sandboxWallets()[1];
  if (!usdc || usdc.network === 'fiat' || !payee) throw new Error('the sandbox has no USDC');
  const target = resolveTarget(chains, {
    walletAddress: payee.address,
    chainId: 31_337,
    tokenAddress: usdc.address,
  });
  destinationId = (
    await activateDestination(service.database.db, systemClock, tenant.accountId, target)
  ).destinationId;
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

describe('the sandbox’s screening providers', () => {
  it('refuse the sanctioned address and pass a test wallet, over HTTP', async () => {
    expect(logs.text()).toContain('sandbox screening providers (hypernative, merklescience)');
    const created = await service.app.inject({
      method: 'POST',
      url: '/v2/secure-payments',
      headers: { 'x-api-key': tenant.apiKey },
      payload: {
        requests: [{ destinationId, amount: '1' }],
        accessPolicy: { mode: 'kyt_all_wallets', screeningProvider: 'merklescience' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const pay = (wallet: string) =>
      service.app.inject({
        method: 'GET',
        url: `/v2/secure-payments/${created.json().token}/pay?wallet=${wallet}`,
        headers: { 'x-api-key': tenant.apiKey },
      });
    const refused = await pay(SANCTIONED);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().code).toBe('payer_screening_rejected');
    const served = await pay(sandboxWallets()[2]?.address ?? '');
    expect(served.statusCode, served.body).toBe(200);
  });
});
