import { describe, expect, it } from 'vitest';
import { escapeAttribute, pathOf, renderShell, shellHeaders } from './web-shell.ts';

const WORDS = { title: 'Pay', loading: 'Loading…', noscript: 'Needs JavaScript.' };

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
    const config = {
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
    const html = renderShell({ basePath: '', manifest: MANIFEST, config, words: WORDS });
    expect(html).not.toContain('<script>');
    const match = /<meta name="payreq-config" content="([^"<>']*)">/.exec(html);
    expect(match).not.toBeNull();
    expect(JSON.parse(unescapeAttribute(match?.[1] ?? ''))).toEqual(config);
  });

  it('names the assets under the page’s path', () => {
    const html = renderShell({ basePath: '/pay', manifest: MANIFEST, config: {}, words: WORDS });
    expect(html).toContain('<link rel="stylesheet" href="/pay/assets/styles-B.css">');
    expect(html).toContain('<script type="module" src="/pay/assets/main-A.js"></script>');
  });

  it('says its words escaped', () => {
    const html = renderShell({
      basePath: '',
      manifest: MANIFEST,
      config: {},
      words: { title: 'A & B', loading: '<b>wait</b>', noscript: 'turn "it" on' },
    });
    expect(html).toContain('<title>A &amp; B</title>');
    expect(html).toContain('<h1>&lt;b&gt;wait&lt;/b&gt;</h1>');
    expect(html).toContain('<noscript>turn &quot;it&quot; on</noscript>');
  });
});

describe('pathOf and shellHeaders', () => {
  it('takes a URL’s path without its trailing slash', () => {
    expect(pathOf('https://example.com/')).toBe('');
    expect(pathOf('https://example.com/dashboard/')).toBe('/dashboard');
  });

  it('allows calls to the page’s origin and the others named, once each', () => {
    const headers = shellHeaders({
      url: 'https://pay.example/dashboard',
      frameAncestors: "'none'",
      calls: ['https://api.example/a', 'https://api.example/b', 'https://pay.example/c'],
    });
    expect(headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https://api.example; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['referrer-policy']).toBe('no-referrer');
  });
});
