import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app.ts';

describe('METRICS_*', () => {
  it('serves no metrics unless a token or a port is set', () => {
    expect(testConfig().metrics).toBeNull();
  });

  it('serves them on the API’s port behind METRICS_TOKEN', () => {
    const metrics = testConfig({ METRICS_TOKEN: 'a'.repeat(16) }).metrics;
    expect(metrics?.listen).toBeNull();
    expect(metrics?.token?.reveal()).toBe('a'.repeat(16));
    // The token never shows in a log line or a dump of the config.
    expect(JSON.stringify(metrics)).not.toContain('a'.repeat(16));
  });

  it('serves them on a listener of their own with METRICS_PORT, on loopback by default', () => {
    expect(testConfig({ METRICS_PORT: '9464' }).metrics).toEqual({
      token: null,
      listen: { host: '127.0.0.1', port: 9464 },
    });
    expect(testConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' }).metrics?.listen).toEqual({
      host: '10.0.0.5',
      port: 9464,
    });
  });

  it('refuses a short token, a host without a port, and a bad port', () => {
    expect(() => testConfig({ METRICS_TOKEN: 'short' })).toThrow(
      /METRICS_TOKEN must be at least 16/,
    );
    expect(() => testConfig({ METRICS_TOKEN: 'with a space in it!' })).toThrow(/METRICS_TOKEN/);
    expect(() => testConfig({ METRICS_HOST: '0.0.0.0' })).toThrow(
      /METRICS_HOST needs METRICS_PORT/,
    );
    expect(() => testConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });
});
