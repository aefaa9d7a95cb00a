import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKeyRing, type KeyRing, KeyRingError } from '../base/key-ring.ts';
import type { Config } from './config.ts';
import { ConfigError, decodeSecretKey } from './readers.ts';

export const SECRET_KEY_FILE = 'secret.key';

/**
 * The key that encrypts secrets at rest: `SECRET_KEY` if set, else `<DATA_DIR>/secret.key`,
 * created (mode 0600) on first start. Processes sharing one Postgres must share one key, so
 * set `SECRET_KEY` when running more than one.
 */
export function loadSecretKey(config: Config): Buffer {
  if (config.secretKey !== null) return config.secretKey;
  const path = join(config.dataDir, SECRET_KEY_FILE);
  try {
    const key = decodeSecretKey(readFileSync(path, 'utf8'));
    if (key === null)
      throw new ConfigError('SECRET_KEY', `file ${path} does not hold a 32-byte key`);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process created it between our read and write: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadSecretKey(config);
    throw error;
  }
}

/**
 * The keys that seal personal data (src/base/key-ring.ts): SECRET_KEY (its id derived from it)
 * and DATA_KEYS, sealing under DATA_KEY_ID (SECRET_KEY's when unset).
 */
export function loadKeyRing(config: Config): KeyRing {
  try {
    return createKeyRing({
      defaultKey: loadSecretKey(config),
      extra: config.dataKeys.keys.map(({ id, key }) => {
        const bytes = decodeSecretKey(key.reveal());
        if (bytes === null) throw new ConfigError('DATA_KEYS', `key ${id} is not 32 bytes`);
        return { id, key: bytes };
      }),
      currentId: config.dataKeys.currentId,
    });
  } catch (error) {
    if (error instanceof KeyRingError) throw new ConfigError('DATA_KEY_ID', error.message);
    throw error;
  }
}
