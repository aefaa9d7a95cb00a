import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isPrivateAddress, literalRefusal } from './url-policy.ts';

const HTTPS_ONLY = 'must use https (http only for localhost when ALLOW_LOCAL_WEBHOOKS is on)';
const PRIVATE = 'must not point at a private or loopback address';

describe('isPrivateAddress', () => {
  it.each([
    ['0.0.0.0', 'this network'],
    ['10.0.0.1', '10/8, first'],
    ['10.255.255.255', '10/8, last'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback, end of 127/8'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['172.16.0.1', '172.16/12, first'],
    ['172.31.255.255', '172.16/12, last'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.168.1.1', '192.168/16'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
  ])('treats IPv4 %s (%s) as private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.216.34'],
    ['9.255.255.255'], // just below 10/8
    ['11.0.0.0'], // just above 10/8
    ['172.15.255.255'], // just below 172.16/12
    ['172.32.0.0'], // just above 172.16/12
    ['192.169.0.1'],
    ['100.128.0.1'], // just above 100.64/10
  ])('treats public IPv4 %s as public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local, fc half'],
    ['fd12:3456:789a::1', 'unique local, fd half'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local, end of fe80::/10'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::FFFF:10.1.2.3', 'IPv4-mapped private, upper case'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex form'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254 in hex form'],
  ])('treats IPv6 %s (%s) as private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ['2001:4860:4860::8888'],
    ['2606:4700:4700::1111'],
    ['::ffff:8.8.8.8'],
    ['fec0::1'], // just above fe80::/10
    ['fbff::1'], // just below fc00::/7
  ])('treats public IPv6 %s as public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('treats anything that is not an IP address as private, failing closed', () => {
    expect(isPrivateAddress('localhost')).toBe(true);
    expect(isPrivateAddress('')).toBe(true);
    expect(isPrivateAddress('[::1]')).toBe(true);
  });
});

describe('checkWebhookUrl', () => {
  it('accepts a public https URL and returns it normalised', () => {
    expect(checkWebhookUrl('HTTPS://Hooks.Example.com:443/payreq?x=1', false)).toEqual({
      ok: true,
      url: 'https://hooks.example.com/payreq?x=1',
    });
    expect(checkWebhookUrl('https://93.184.216.34/hooks', false)).toEqual({
      ok: true,
      url: 'https://93.184.216.34/hooks',
    });
  });

  it('refuses plain http to a public host whatever the local setting', () => {
    for (const allowLocal of [false, true]) {
      expect(checkWebhookUrl('http://hooks.example.com/x', allowLocal)).toEqual({
        ok: false,
        reason: HTTPS_ONLY,
      });
    }
  });

  it('accepts http on loopback names and private addresses only when local webhooks are allowed', () => {
    for (const url of [
      'http://localhost:3000/hooks',
      'http://api.localhost/hooks',
      'http://127.0.0.1:8080/hooks',
      'http://[::1]:8080/hooks',
      'http://10.0.0.5/hooks',
      'http://192.168.1.20/hooks',
    ]) {
      expect(checkWebhookUrl(url, true), url).toMatchObject({ ok: true });
      expect(checkWebhookUrl(url, false), url).toEqual({ ok: false, reason: HTTPS_ONLY });
    }
  });

  it('refuses https to private and loopback literals when local webhooks are off', () => {
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://localhost/hooks',
      'https://localhost./hooks',
      'https://hooks.localhost/x',
      'https://10.1.2.3/hooks',
      'https://172.20.0.1/hooks',
      'https://192.168.0.1/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hooks',
      'https://0.0.0.0/hooks',
      'https://[::1]/hooks',
      'https://[fd00::1]/hooks',
      'https://[fe80::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://[::ffff:169.254.169.254]/hooks',
      // Other spellings of 127.0.0.1 that the URL parser normalises.
      'https://2130706433/hooks',
      'https://0x7f.1/hooks',
      'https://127.1/hooks',
    ]) {
      expect(checkWebhookUrl(url, false), url).toEqual({ ok: false, reason: PRIVATE });
      expect(checkWebhookUrl(url, true), url).toMatchObject({ ok: true });
    }
  });

  it('refuses credentials, fragments and other schemes', () => {
    expect(checkWebhookUrl('https://user:pass@hooks.example.com/x', false)).toEqual({
      ok: false,
      reason: 'must not contain credentials',
    });
    expect(checkWebhookUrl('https://user@hooks.example.com/x', true)).toEqual({
      ok: false,
      reason: 'must not contain credentials',
    });
    expect(checkWebhookUrl('https://hooks.example.com/x#part', false)).toEqual({
      ok: false,
      reason: 'must not contain a fragment',
    });
    expect(checkWebhookUrl('https://hooks.example.com/x#', false)).toEqual({
      ok: false,
      reason: 'must not contain a fragment',
    });
    for (const url of [
      'ftp://hooks.example.com/x',
      'ws://hooks.example.com/x',
      'file:///etc/passwd',
      'javascript:alert(1)',
    ]) {
      expect(checkWebhookUrl(url, true), url).toEqual({ ok: false, reason: 'must use https' });
    }
  });

  it('refuses what is not an absolute URL, and URLs over 2048 characters', () => {
    for (const url of ['hooks.example.com/x', '/hooks', 'not a url', 'https://']) {
      expect(checkWebhookUrl(url, true), url).toEqual({
        ok: false,
        reason: 'must be an absolute URL',
      });
    }
    const base = 'https://hooks.example.com/';
    expect(checkWebhookUrl(base + 'a'.repeat(2048 - base.length), false)).toMatchObject({
      ok: true,
    });
    expect(checkWebhookUrl(base + 'a'.repeat(2049 - base.length), false)).toEqual({
      ok: false,
      reason: 'must be at most 2048 characters',
    });
  });
});

describe('literalRefusal', () => {
  it('names a private IP literal when local webhooks are off, since no DNS lookup will see it', () => {
    expect(literalRefusal('http://127.0.0.1:8080/hooks', false)).toBe(
      '127.0.0.1 is a private address',
    );
    expect(literalRefusal('https://[::1]/hooks', false)).toBe('::1 is a private address');
    expect(literalRefusal('https://169.254.169.254/', false)).toBe(
      '169.254.169.254 is a private address',
    );
  });

  it('lets names (checked at lookup), public literals and allowed local literals through', () => {
    expect(literalRefusal('http://localhost:8080/hooks', false)).toBeNull();
    expect(literalRefusal('https://hooks.example.com/', false)).toBeNull();
    expect(literalRefusal('https://93.184.216.34/', false)).toBeNull();
    expect(literalRefusal('http://127.0.0.1:8080/hooks', true)).toBeNull();
  });
});
