import { describe, expect, it } from 'vitest';
import { createChainRegistry } from '../chains/registry.ts';
import { parseConfig } from '../config/config.ts';
import { sandboxNetwork } from '../sandbox/network.ts';
import {
  escapeAttribute,
  type PageConfig,
  pageConfig,
  payPagePath,
  renderShell,
  shellHeaders,
} from './shell.ts';

const MANIFEST = {
  main: 'main-A.js',
  styles: 'styles-B.css',
  files: ['main-A.js', 'styles-B.css'],
};

/** What a browser reads out of a double-quoted attribute. */
function unescapeAttribute(text: string): string {
  return text.replace(/&(amp|quot|#39|lt|gt);/g, (_match, name: string) => {
    const chars: Record<string, string> = { amp: '&', quot: '"', '#39': "'", lt: '<', gt: '>' };
    return chars[name] ?? '';
  });
}

describe('escapeAttribute', () => {
  it('escapes the five characters that could end an attribute or open a tag', () => {
    expect(escapeAttribute(`a&b"c'd<e>f`)).toBe('a&amp;b&quot;c&#39;d&lt;e&gt;f');
    expect(escapeAttribute('&amp;')).toBe('&amp;amp;');
    expect(escapeAttribute('plain text: 1/2 = 0.5 {x}')).toBe('plain text: 1/2 = 0.5 {x}');
  });
});

describe('renderShell', () => {
  it('puts a hostile configuration in the meta tag as text that parses back to it', () => {
    const hostile = `"><script>alert('x')</script><meta x="&amp;`;
    const config: PageConfig = {
      apiBase: `https://api.example/${hostile}`,
      clientId: hostile,
      networks: {
        base: {
          name: hostile,
          chainId: 8453,
          kind: 'evm',
          native: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          explorerTxUrl: `https://x.example/${hostile}/{txHash}`,
          rpcUrl: null,
          intentChain: 'BASE',
        },
      },
    };
    const html = renderShell({ basePath: '', manifest: MANIFEST, config });
    expect(html).not.toContain('<script>');
    const match = /<meta name="payreq-config" content="([^"<>']*)">/.exec(html);
    expect(match).not.toBeNull();
    expect(JSON.parse(unescapeAttribute(match?.[1] ?? ''))).toEqual(config);
  });

  it('names the assets under the page’s path', () => {
    const config: PageConfig = { apiBase: 'https://api.example', clientId: 'cli_x', networks: {} };
    const html = renderShell({ basePath: '/pay', manifest: MANIFEST, config });
    expect(html).toContain('<link rel="stylesheet" href="/pay/assets/styles-B.css">');
    expect(html).toContain('<script type="module" src="/pay/assets/main-A.js"></script>');
  });
});

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

describe('payPagePath and shellHeaders', () => {
  it('serves at PAY_URL’s path, the root being empty', () => {
    expect(payPagePath('https://pay.example')).toBe('');
    expect(payPagePath('https://pay.example/')).toBe('');
    expect(payPagePath('https://example.com/pay')).toBe('/pay');
    expect(payPagePath('https://example.com/shop/pay/')).toBe('/shop/pay');
  });

  it('denies framing with both headers by default, and only through the CSP otherwise', () => {
    const settings = { baseUrl: 'https://pay.example', payUrl: 'https://pay.example' };
    const denied = shellHeaders({ ...settings, payFrameAncestors: "'none'" });
    expect(denied['x-frame-options']).toBe('DENY');
    expect(denied['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(denied['content-security-policy']).toContain("connect-src 'self';");
    const self = shellHeaders({ ...settings, payFrameAncestors: "'self'" });
    expect(self['x-frame-options']).toBeUndefined();
    expect(self['content-security-policy']).toMatch(/; frame-ancestors 'self'$/);
  });
});
