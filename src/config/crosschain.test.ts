import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.ts';

const CWD = '/srv/payreq';

describe('the routing aggregator settings (LIFI_*)', () => {
  it('defaults to LI.FI over Across, no key, bounded calls and a breaker', () => {
    expect(parseConfig({}, CWD).crosschain).toEqual({
      url: 'https://li.quest',
      urlDefaulted: true,
      apiKey: null,
      bridge: 'across',
      timeoutMs: 10_000,
      breakerFailures: 5,
      breakerHalfOpenMs: 30_000,
    });
  });

  it('reads every setting and never shows the API key', () => {
    const key = 'lifi-key-4f1c9a7e2b';
    const config = parseConfig(
      {
        LIFI_URL: 'http://127.0.0.1:4100/',
        LIFI_API_KEY: key,
        LIFI_BRIDGE: 'stargateV2',
        LIFI_TIMEOUT_MS: '250',
        LIFI_BREAKER_FAILURES: '2',
        LIFI_BREAKER_HALF_OPEN_MS: '40',
      },
      CWD,
    );
    const { apiKey, ...rest } = config.crosschain;
    expect(rest).toEqual({
      url: 'http://127.0.0.1:4100',
      urlDefaulted: false,
      bridge: 'stargateV2',
      timeoutMs: 250,
      breakerFailures: 2,
      breakerHalfOpenMs: 40,
    });
    expect(apiKey?.reveal()).toBe(key);
    for (const shown of [JSON.stringify(config), String(apiKey), inspect(config, { depth: 9 })]) {
      expect(shown).not.toContain(key);
    }
    expect(JSON.stringify(config.crosschain)).toContain('"apiKey":"[secret]"');
  });

  it.each([
    ['LIFI_URL', 'ftp://aggregator.example'],
    ['LIFI_API_KEY', 'two words'],
    ['LIFI_BRIDGE', 'across,stargate'],
    ['LIFI_TIMEOUT_MS', '0'],
    ['LIFI_BREAKER_FAILURES', '0'],
    ['LIFI_BREAKER_HALF_OPEN_MS', 'soon'],
  ])('refuses %s=%s, naming the variable and not the value of a key', (name, value) => {
    const error = (() => {
      try {
        parseConfig({ [name]: value }, CWD);
      } catch (caught) {
        return caught;
      }
      throw new Error('accepted');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    if (name === 'LIFI_API_KEY') expect((error as Error).message).not.toContain(value);
  });
});
