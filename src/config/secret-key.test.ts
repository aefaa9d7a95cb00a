import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.ts';
import { loadSecretKey, SECRET_KEY_FILE } from './secret-key.ts';

describe('loadSecretKey', () => {
  it('creates a private key file in DATA_DIR on first start and reuses it', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'payreq-key-')), 'nested');
    const config = parseConfig({ DATA_DIR: dataDir });
    const first = loadSecretKey(config);
    expect(first).toHaveLength(32);
    const path = join(dataDir, SECRET_KEY_FILE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(first.toString('hex'));
    expect(loadSecretKey(config)).toEqual(first);
  });

  it('prefers SECRET_KEY and then writes no file', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payreq-key-'));
    const key = Buffer.alloc(32, 9);
    const config = parseConfig({ DATA_DIR: dataDir, SECRET_KEY: key.toString('hex') });
    expect(loadSecretKey(config)).toEqual(key);
    expect(() => statSync(join(dataDir, SECRET_KEY_FILE))).toThrow();
  });

  it('refuses a damaged key file instead of replacing it', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payreq-key-'));
    writeFileSync(join(dataDir, SECRET_KEY_FILE), 'garbage\n');
    expect(() => loadSecretKey(parseConfig({ DATA_DIR: dataDir }))).toThrow(ConfigError);
  });
});
