import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.ts';
import { loadKeyRing } from './secret-key.ts';

const HEX_A = 'a'.repeat(64);
const HEX_B = 'b'.repeat(64);
const env = (extra: Record<string, string>) => ({
  DATA_DIR: mkdtempSync(join(tmpdir(), 'payreq-keys-')),
  SECRET_KEY: '1'.repeat(64),
  ...extra,
});

describe('COMPLIANCE_* and DATA_KEYS', () => {
  it('reads the provider and hides its key and secret when printed', () => {
    const config = parseConfig(
      env({
        COMPLIANCE_URL: 'https://kyc.example/api',
        COMPLIANCE_API_KEY: 'sk_live_provider',
        COMPLIANCE_WEBHOOK_SECRET: 'whsec_0123456789abcdef',
      }),
    );
    expect(config.compliance.url).toBe('https://kyc.example/api');
    expect(config.compliance.apiKey?.reveal()).toBe('sk_live_provider');
    const printed = `${JSON.stringify(config)} ${inspect(config, { depth: 9 })}`;
    expect(printed).not.toContain('sk_live_provider');
    expect(printed).not.toContain('whsec_0123456789abcdef');
  });

  it('makes a ring of SECRET_KEY and DATA_KEYS, sealing under DATA_KEY_ID', () => {
    const config = parseConfig(
      env({ DATA_KEYS: `old:${HEX_A}, new:${HEX_B}`, DATA_KEY_ID: 'new' }),
    );
    expect(JSON.stringify(config)).not.toContain(HEX_A);
    const ring = loadKeyRing(config);
    expect(ring.currentId).toBe('new');
    expect(ring.ids).toEqual(['new', expect.stringMatching(/^sk-/), 'old']);
    expect(loadKeyRing(parseConfig(env({}))).currentId).toBe(ring.ids[1]);
  });

  it('refuses malformed keys, ids, and a current key not given, never echoing a key', () => {
    for (const bad of [
      { DATA_KEYS: 'nokey' },
      { DATA_KEYS: 'a:short' },
      { DATA_KEYS: `a:${HEX_A},a:${HEX_B}` },
      { DATA_KEY_ID: 'bad id' },
      { COMPLIANCE_WEBHOOK_SECRET: 'short' },
    ]) {
      expect(() => parseConfig(env(bad)), JSON.stringify(bad)).toThrow(ConfigError);
    }
    expect(() => loadKeyRing(parseConfig(env({ DATA_KEY_ID: 'missing' })))).toThrow(ConfigError);
    try {
      parseConfig(env({ DATA_KEYS: `a:${HEX_A}x` }));
    } catch (error) {
      expect(String(error)).not.toContain(HEX_A);
    }
  });
});
