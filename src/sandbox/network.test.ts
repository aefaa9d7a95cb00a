import { describe, expect, it } from 'vitest';
import { sandboxBridged, sandboxNetworks } from './network.ts';

describe('the sandbox’s chains', () => {
  const config = {
    sandbox: true,
    baseUrl: 'http://localhost:8080',
    databaseUrl: null,
    crosschain: { urlDefaulted: true },
  };

  it('bridges a second chain with the embedded database and no LIFI_URL', () => {
    expect(sandboxBridged(config)).toBe(true);
    expect(sandboxNetworks(config).map((local) => local.network.id)).toEqual([
      'sandbox',
      'sandbox-b',
    ]);
    const second = sandboxNetworks(config)[1];
    expect(second?.network).toMatchObject({
      chainId: 31338,
      crossChainName: 'SANDBOX_B',
      explorerTxUrl: 'http://localhost:8080/sandbox-b/tx/{txHash}',
    });
  });

  it('runs one chain with a configured aggregator or with Postgres, none when off', () => {
    const configured = { ...config, crosschain: { urlDefaulted: false } };
    const postgres = { ...config, databaseUrl: 'postgres://127.0.0.1/payreq' };
    for (const one of [configured, postgres]) {
      expect(sandboxBridged(one)).toBe(false);
      expect(sandboxNetworks(one).map((local) => local.network.id)).toEqual(['sandbox']);
    }
    expect(sandboxNetworks({ ...config, sandbox: false })).toEqual([]);
  });
});
