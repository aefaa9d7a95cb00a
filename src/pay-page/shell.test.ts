import { describe, expect, it } from 'vitest';
import { createChainRegistry } from '../chains/registry.ts';
import { parseConfig } from '../config/config.ts';
import { sandboxNetwork } from '../sandbox/network.ts';
import { pageConfig, payPageHeaders, payPagePath } from './shell.ts';

describe('pageConfig', () => {
  it('gives the sandbox, when it runs, the RPC and explorer page this server serves; other networks no RPC', () => {
    const config = parseConfig({ BASE_URL: 'https://api.example', SANDBOX: 'true' });
    const chains = createChainRegistry(config, sandboxNetwork(config.baseUrl));
    const page = pageConfig({ baseUrl: config.baseUrl, clientId: 'cli_x', chains });
    expect(page.networks.sandbox).toEqual({
      name: 'Sandbox (local chain)',
      chainId: 31337,
      kind: 'evm',
      native: { name: 'Sandbox Ether', symbol: 'ETH', decimals: 18 },
      explorerTxUrl: 'https://api.example/sandbox/tx/{txHash}',
      rpcUrl: 'https://api.example/sandbox/rpc',
      intentChain: 'SANDBOX',
    });
    expect(Object.values(page.networks).filter((n) => n.rpcUrl !== null)).toHaveLength(1);
  });

  it('follows EXPLORER_TX_URL_<NETWORK>', () => {
    const config = parseConfig({
      SANDBOX: 'false',
      EXPLORER_TX_URL_BASE: 'https://explorer.example/tx/{txHash}',
      EXPLORER_TX_URL_SEPOLIA: 'none',
    });
    const page = pageConfig({
      baseUrl: config.baseUrl,
      clientId: 'cli_x',
      chains: createChainRegistry(config),
    });
    expect(page.networks.base?.explorerTxUrl).toBe('https://explorer.example/tx/{txHash}');
    expect(page.networks.sepolia?.explorerTxUrl).toBeNull();
  });
});

describe('payPagePath and payPageHeaders', () => {
  it('serves at PAY_URL’s path, the root being empty', () => {
    expect(payPagePath('https://pay.example')).toBe('');
    expect(payPagePath('https://pay.example/')).toBe('');
    expect(payPagePath('https://example.com/pay')).toBe('/pay');
    expect(payPagePath('https://example.com/shop/pay/')).toBe('/shop/pay');
  });

  it('denies framing with both headers by default, and only through the CSP otherwise', () => {
    const settings = { baseUrl: 'https://pay.example', payUrl: 'https://pay.example' };
    const denied = payPageHeaders({ ...settings, payFrameAncestors: "'none'" });
    expect(denied['x-frame-options']).toBe('DENY');
    expect(denied['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(denied['content-security-policy']).toContain("connect-src 'self';");
    const self = payPageHeaders({ ...settings, payFrameAncestors: "'self'" });
    expect(self['x-frame-options']).toBeUndefined();
    expect(self['content-security-policy']).toMatch(/; frame-ancestors 'self'$/);
  });

  it('lets the page call the API’s origin and those it is also given', () => {
    const headers = payPageHeaders(
      {
        baseUrl: 'https://api.example/v',
        payUrl: 'https://pay.example/pay',
        payFrameAncestors: "'none'",
      },
      ['https://auth.example/x', 'https://pay.example/y'],
    );
    expect(headers['content-security-policy']).toContain(
      "connect-src 'self' https://api.example https://auth.example;",
    );
  });
});
