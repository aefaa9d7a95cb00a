import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createChainRegistry } from '../chains/registry.ts';
import { DEFAULT_RATE_LIMITS, PGLITE_ADMISSION } from '../http/budgets.ts';
import { relayerAccount } from '../payouts/recurring/relayer.ts';
import { sandboxNetwork } from '../sandbox/network.ts';
import { ConfigError, parseConfig, RATE_LIMIT_ENV } from './config.ts';

const CWD = '/srv/payreq';

function configError(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env, CWD);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  it('runs with no settings at all: port 8080, embedded database, one listener for all surfaces', () => {
    const config = parseConfig({}, CWD);
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:8080',
      authUrl: 'http://localhost:8080',
      payUrl: 'http://localhost:8080',
      databaseUrl: null,
      redisUrl: null,
      dataDir: '/srv/payreq/.payreq',
      brandingDir: '/srv/payreq/.payreq/branding',
      logLevel: 'info',
      secretKey: null,
    });
    expect(config.networks.mainnet).toEqual({
      rpcUrl: null,
      confirmations: 12,
      contracts: {},
      tokens: {},
    });
    expect(config.sandbox).toBe(true);
    expect(parseConfig({ NODE_ENV: 'production' }, CWD).sandbox).toBe(false);
    expect(config.networks.matic.confirmations).toBe(64);
    expect(Object.keys(config.networks)).toHaveLength(8);
  });

  it('reads BRANDING_DIR, absolute or from the working directory; else DATA_DIR/branding', () => {
    expect(parseConfig({ DATA_DIR: '/var/lib/payreq' }, CWD).brandingDir).toBe(
      '/var/lib/payreq/branding',
    );
    expect(parseConfig({ BRANDING_DIR: '/srv/brand' }, CWD).brandingDir).toBe('/srv/brand');
    expect(parseConfig({ BRANDING_DIR: 'brand' }, CWD).brandingDir).toBe('/srv/payreq/brand');
  });

  it('reads every variable', () => {
    const config = parseConfig(
      {
        PORT: '9000',
        HOST: '0.0.0.0',
        BASE_URL: 'https://api.example.com/',
        AUTH_URL: 'https://auth.example.com',
        PAY_URL: 'https://pay.example.com/checkout/',
        DATABASE_URL: 'postgres://u:p@db:5432/payreq',
        REDIS_URL: 'redis://cache:6379',
        DATA_DIR: '/var/lib/payreq',
        LOG_LEVEL: 'DEBUG',
        SECRET_KEY: 'ab'.repeat(32),
        RPC_URL_ARBITRUM_ONE: 'https://arb.example/rpc',
        CONFIRMATIONS_ARBITRUM_ONE: '5',
        RPC_URL_TRON: 'https://tron.example',
        SANDBOX: 'false',
        TOKENS_BASE: '{"USDC":"0x5FbDB2315678afecb367f032d93F642f64180aa3"}',
        CONTRACTS_BASE: '{"batchPayments":"0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"}',
      },
      CWD,
    );
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      baseUrl: 'https://api.example.com',
      authUrl: 'https://auth.example.com',
      payUrl: 'https://pay.example.com/checkout',
      databaseUrl: 'postgres://u:p@db:5432/payreq',
      redisUrl: 'redis://cache:6379',
      dataDir: '/var/lib/payreq',
      logLevel: 'debug',
    });
    expect(config.secretKey?.toString('hex')).toBe('ab'.repeat(32));
    expect(config.networks['arbitrum-one']).toMatchObject({
      rpcUrl: 'https://arb.example/rpc',
      confirmations: 5,
    });
    expect(config.sandbox).toBe(false);
    expect(config.networks.base.tokens).toEqual({
      USDC: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    });
    expect(config.networks.base.contracts).toEqual({
      batchPayments: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    });
    expect(config.networks.tron.rpcUrl).toBe('https://tron.example');
  });

  it('reads MULTICALL_MAX_CHILDREN, 150 by default, 2 to 1000', () => {
    expect(parseConfig({}, CWD).multicallMaxChildren).toBe(150);
    expect(parseConfig({ MULTICALL_MAX_CHILDREN: '20' }, CWD).multicallMaxChildren).toBe(20);
    for (const bad of ['1', '1001', 'many']) {
      expect(() => parseConfig({ MULTICALL_MAX_CHILDREN: bad }, CWD)).toThrow(
        /MULTICALL_MAX_CHILDREN/,
      );
    }
  });

  it("reads SANDBOX_IDLE_BLOCK_MS: unset leaves the sandbox's default, 0 turns it off", () => {
    expect(parseConfig({}, CWD).sandboxIdleBlockMs).toBeUndefined();
    expect(parseConfig({ SANDBOX_IDLE_BLOCK_MS: '0' }, CWD).sandboxIdleBlockMs).toBe(0);
    expect(parseConfig({ SANDBOX_IDLE_BLOCK_MS: '500' }, CWD).sandboxIdleBlockMs).toBe(500);
    for (const bad of ['-1', 'soon', '3600001']) {
      expect(() => parseConfig({ SANDBOX_IDLE_BLOCK_MS: bad }, CWD)).toThrow(
        /SANDBOX_IDLE_BLOCK_MS/,
      );
    }
  });

  it("reads each request budget from RATE_LIMIT_*, today's figures by default", () => {
    expect(parseConfig({}, CWD).rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    const raised = parseConfig({ RATE_LIMIT_API_KEY: '100000', RATE_LIMIT_AUTH: '5' }, CWD);
    expect(raised.rateLimits).toEqual({
      ...DEFAULT_RATE_LIMITS,
      apiKey: 100_000,
      authEndpoint: 5,
    });
    for (const name of Object.values(RATE_LIMIT_ENV)) {
      for (const bad of ['0', '-1', '1.5', 'lots', '1000001']) {
        expect(() => parseConfig({ [name]: bad }, CWD), `${name}=${bad}`).toThrow(name);
      }
    }
  });

  it('gates admission on the embedded database by default, on Postgres only when set', () => {
    expect(parseConfig({}, CWD).admission).toEqual(PGLITE_ADMISSION);
    const postgres = { DATABASE_URL: 'postgres://127.0.0.1/x' };
    expect(parseConfig(postgres, CWD).admission).toBeNull();
    expect(parseConfig({ ...postgres, ADMISSION_MAX_IN_FLIGHT: '32' }, CWD).admission).toEqual({
      ...PGLITE_ADMISSION,
      maxInFlight: 32,
    });
    expect(parseConfig({ ADMISSION_MAX_IN_FLIGHT: '0' }, CWD).admission).toBeNull();
    const tuned = { ADMISSION_MAX_QUEUE: '5', ADMISSION_MAX_WAIT_MS: '100' };
    expect(parseConfig(tuned, CWD).admission).toEqual({
      maxInFlight: PGLITE_ADMISSION.maxInFlight,
      maxQueue: 5,
      maxWaitMs: 100,
    });
    expect(() => parseConfig({ ADMISSION_MAX_WAIT_MS: 'soon' }, CWD)).toThrow(
      'ADMISSION_MAX_WAIT_MS',
    );
  });

  it('reads TRUST_PROXY as a boolean, a hop count or addresses', () => {
    expect(parseConfig({}, CWD).trustProxy).toBe(false);
    expect(parseConfig({ TRUST_PROXY: 'true' }, CWD).trustProxy).toBe(true);
    expect(parseConfig({ TRUST_PROXY: '2' }, CWD).trustProxy).toBe(2);
    expect(parseConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }, CWD).trustProxy).toBe(
      '10.0.0.0/8, 127.0.0.1',
    );
  });

  it('reads PAY_FRAME_ANCESTORS into a CSP source list, none by default', () => {
    const ancestors = (value?: string) =>
      parseConfig(value === undefined ? {} : { PAY_FRAME_ANCESTORS: value }, CWD).payFrameAncestors;
    expect(ancestors()).toBe("'none'");
    expect(ancestors('none')).toBe("'none'");
    expect(ancestors("'none'")).toBe("'none'");
    expect(ancestors('self')).toBe("'self'");
    expect(ancestors('self  https://Shop.Example:443 http://localhost:3000')).toBe(
      "'self' https://shop.example http://localhost:3000",
    );
  });

  it('reads explorer templates per network: a URL with {txHash}, or none', () => {
    const config = parseConfig(
      {
        EXPLORER_TX_URL_BASE: 'https://explorer.example/base/tx/{txHash}',
        EXPLORER_TX_URL_SEPOLIA: 'none',
        DASHBOARD_URL: 'https://dashboard.example',
      },
      CWD,
    );
    expect(config.networks.base.explorerTxUrl).toBe('https://explorer.example/base/tx/{txHash}');
    expect(config.networks.sepolia.explorerTxUrl).toBeNull();
    expect(config.networks.mainnet.explorerTxUrl).toBeUndefined();
    expect(config.dashboardUrl).toBe('https://dashboard.example');
    expect(parseConfig({ PAY_URL: 'https://pay.example/shop/pay' }, CWD).dashboardUrl).toBe(
      'https://pay.example/dashboard',
    );
    const chains = createChainRegistry(config, sandboxNetwork(config.baseUrl));
    expect(chains.explorerTxUrl('base', '0xabc')).toBe('https://explorer.example/base/tx/0xabc');
    expect(chains.explorerTxUrl('sepolia', '0xabc')).toBeNull();
    expect(chains.explorerTxUrl('mainnet', '0xabc')).toBe('https://etherscan.io/tx/0xabc');
    expect(chains.explorerTxUrl('tron', 'ab12')).toBe('https://tronscan.org/#/transaction/ab12');
    expect(chains.explorerTxUrl('sandbox', '0xabc')).toBe(`${config.baseUrl}/sandbox/tx/0xabc`);
  });

  it('accepts the secret key as base64 too', () => {
    const key = Buffer.alloc(32, 7);
    expect(parseConfig({ SECRET_KEY: key.toString('base64') }, CWD).secretKey).toEqual(key);
  });

  it('holds the commerce operator key as a secret', () => {
    expect(parseConfig({}, CWD).commerceOperatorKey).toBeNull();
    const key = 'df57089febbacf7ba0bc227dafbffa9fc08a93fdc68e1e42411a14efcf23656e';
    const operator = parseConfig({ COMMERCE_OPERATOR_KEY: key }, CWD).commerceOperatorKey;
    expect(operator?.reveal()).toBe(`0x${key}`);
    expect(JSON.stringify({ operator })).toBe('{"operator":"[secret]"}');
    expect(inspect(operator)).toBe('[secret]');
    expect(() => parseConfig({ COMMERCE_OPERATOR_KEY: 'f'.repeat(64) }, CWD)).toThrow(
      'COMMERCE_OPERATOR_KEY',
    );
  });

  it('reads the recurring relayer key as an account and never repeats a bad one', () => {
    expect(parseConfig({}, CWD).recurringRelayerKey).toBeNull();
    // The sandbox relayer's public development key, with and without 0x.
    const key = 'df57089febbacf7ba0bc227dafbffa9fc08a93fdc68e1e42411a14efcf23656e';
    for (const value of [key, `0x${key}`, `0x${key.toUpperCase()}`]) {
      const relayer = parseConfig({ RECURRING_RELAYER_KEY: value }, CWD).recurringRelayerKey;
      expect(relayer && relayerAccount(relayer).address).toBe(
        '0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199',
      );
      expect(JSON.stringify({ relayer })).not.toContain(key.slice(0, 16));
      expect(String(relayer)).not.toContain(key.slice(0, 16));
      expect(inspect(relayer)).not.toContain(key.slice(0, 16));
    }
    for (const bad of [`${key}00`, `${key.slice(0, 63)}g`, '0'.repeat(64), 'f'.repeat(64)]) {
      const error = (() => {
        try {
          parseConfig({ RECURRING_RELAYER_KEY: bad }, CWD);
        } catch (caught) {
          return caught as Error;
        }
        throw new Error('accepted');
      })();
      expect(error.message).toMatch(/^RECURRING_RELAYER_KEY /);
      expect(error.message).not.toContain(bad.slice(0, 16));
    }
    expect(parseConfig({}, CWD).workers.recurringPollMs).toBe(10_000);
    expect(parseConfig({ RECURRING_POLL_MS: '250' }, CWD).workers.recurringPollMs).toBe(250);
  });

  it('reads the Safe tracker’s interval, 5 s unless set', () => {
    expect(parseConfig({}, CWD).workers.safeTrackerPollMs).toBe(5_000);
    expect(parseConfig({ SAFE_TRACKER_POLL_MS: '300' }, CWD).workers.safeTrackerPollMs).toBe(300);
    expect(() => parseConfig({ SAFE_TRACKER_POLL_MS: '5' }, CWD)).toThrow(/SAFE_TRACKER_POLL_MS/);
  });

  it('reads the shutdown drain and budget: none and 10 s unless set, the drain within the budget', () => {
    expect(parseConfig({}, CWD).shutdown).toEqual({ drainMs: 0, timeoutMs: 10_000 });
    expect(
      parseConfig({ SHUTDOWN_DRAIN_MS: '5000', SHUTDOWN_TIMEOUT_MS: '25000' }, CWD).shutdown,
    ).toEqual({ drainMs: 5_000, timeoutMs: 25_000 });
    expect(() => parseConfig({ SHUTDOWN_DRAIN_MS: '10000' }, CWD)).toThrow(
      'SHUTDOWN_DRAIN_MS must be less than SHUTDOWN_TIMEOUT_MS (10000), which includes it',
    );
    expect(() => parseConfig({ SHUTDOWN_TIMEOUT_MS: '500' }, CWD)).toThrow(/SHUTDOWN_TIMEOUT_MS/);
  });

  it('reads the commerce reconciler’s interval and grace, 30 s and 10 min unless set', () => {
    const workers = parseConfig({}, CWD).workers;
    expect(workers.commerceReconcilePollMs).toBe(30_000);
    expect(workers.commerceReconcileGraceMs).toBe(600_000);
    const set = parseConfig(
      { COMMERCE_RECONCILE_POLL_MS: '500', COMMERCE_RECONCILE_GRACE_MS: '0' },
      CWD,
    ).workers;
    expect(set).toMatchObject({ commerceReconcilePollMs: 500, commerceReconcileGraceMs: 0 });
    expect(() => parseConfig({ COMMERCE_RECONCILE_POLL_MS: '5' }, CWD)).toThrow(
      /COMMERCE_RECONCILE_POLL_MS/,
    );
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ BASE_URL: 'not a url' }, 'BASE_URL'],
    [{ AUTH_URL: 'ftp://auth.example' }, 'AUTH_URL'],
    [{ PAY_URL: 'https://pay.example/?x=1' }, 'PAY_URL'],
    [{ EXPLORER_TX_URL_BASE: 'https://basescan.org/tx/' }, 'EXPLORER_TX_URL_BASE'],
    [{ EXPLORER_TX_URL_BASE: 'javascript:{txHash}' }, 'EXPLORER_TX_URL_BASE'],
    [{ EXPLORER_TX_URL_POLYGON: 'https://x/{txHash}' }, 'EXPLORER_TX_URL_POLYGON'],
    [{ DATABASE_URL: 'mysql://db/payreq' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://cache' }, 'REDIS_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SECRET_KEY: 'too-short' }, 'SECRET_KEY'],
    [{ RPC_URL_BASE: 'base.example' }, 'RPC_URL_BASE'],
    [{ CONFIRMATIONS_BASE: '-1' }, 'CONFIRMATIONS_BASE'],
    [{ RPC_URL_POLYGON: 'https://polygon.example' }, 'RPC_URL_POLYGON'],
    [{ CONFIRMATIONS_ETHEREUM: '3' }, 'CONFIRMATIONS_ETHEREUM'],
    [{ SANDBOX: 'maybe' }, 'SANDBOX'],
    [{ PAY_FRAME_ANCESTORS: 'http://shop.example' }, 'PAY_FRAME_ANCESTORS'],
    [{ PAY_FRAME_ANCESTORS: 'https://shop.example/checkout' }, 'PAY_FRAME_ANCESTORS'],
    [{ PAY_FRAME_ANCESTORS: 'https://*.shop.example' }, 'PAY_FRAME_ANCESTORS'],
    [{ PAY_FRAME_ANCESTORS: 'none https://shop.example' }, 'PAY_FRAME_ANCESTORS'],
    [{ PAY_FRAME_ANCESTORS: "'unsafe-inline'" }, 'PAY_FRAME_ANCESTORS'],
    [{ PAY_FRAME_ANCESTORS: 'https://shop.example;script-src' }, 'PAY_FRAME_ANCESTORS'],
    [{ TRUST_PROXY: 'yes please' }, 'TRUST_PROXY'],
    [{ TOKENS_BASE: 'USDC=0x1' }, 'TOKENS_BASE'],
    [{ TOKENS_BASE: '{"USDC":"0x1"}' }, 'TOKENS_BASE'],
    [
      { CONTRACTS_BASE: '{"router":"0x5FbDB2315678afecb367f032d93F642f64180aa3"}' },
      'CONTRACTS_BASE',
    ],
    [{ CONTRACTS_POLYGON: '{}' }, 'CONTRACTS_POLYGON'],
  ])('refuses %j, naming the variable', (env, variable) => {
    const error = configError(env);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable} `)).toBe(true);
    expect(error.message).not.toContain('\n');
  });

  it('never echoes the secret key in its error', () => {
    const secret = `secret-${'z'.repeat(40)}`;
    expect(configError({ SECRET_KEY: secret }).message).not.toContain(secret);
  });
});
