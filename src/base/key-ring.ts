import { createHmac } from 'node:crypto';
import { createSecretBox, type SecretBox } from './secret-box.ts';

/**
 * Authenticated encryption under several keys, for personal data at rest (src/payer/). Every
 * ciphertext names its key: `k1.<keyId>.<iv>.<tag>.<ciphertext>` (AES-256-GCM, base64url parts,
 * the context bound as associated data as in secret-box.ts). New ciphertexts are sealed under
 * the current key; any key of the ring opens its own, so a new current key can be set while
 * rows sealed under the old one still open, until `payreq payers reencrypt` re-seals them. The
 * secret box's own `v1.` format (webhook secrets) opens under the default key.
 */

const VERSION = 'k1';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export interface RingKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface KeyRing {
  /** The key new ciphertexts are sealed under. */
  readonly currentId: string;
  /** Every key the ring holds, current first. */
  readonly ids: readonly string[];
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /** The key a ciphertext names (`v1.` ones: the default key's); null if it is not one. */
  keyIdOf(sealed: string): string | null;
  /**
   * A keyed digest of `data` in `context` (HMAC-SHA256 under the default key, hex): equal for
   * equal data, on every process and across changes of the current key, and telling nothing
   * of the data without the key. For idempotency keys made of personal data.
   */
  digest(data: string, context: string): string;
}

export class KeyRingError extends Error {
  override readonly name = 'KeyRingError';
}

/**
 * A key's id when none is given: derived from the key (HMAC, so the id tells nothing of the
 * key), so the same SECRET_KEY has the same id on every process and every start.
 */
function derivedKeyId(key: Buffer): string {
  return `sk-${createHmac('sha256', key).update('payreq data key id').digest('hex').slice(0, 12)}`;
}

function isKeyId(value: string): boolean {
  return KEY_ID.test(value);
}

export function createKeyRing(options: {
  /** SECRET_KEY: its id is `derivedKeyId(key)`; it opens the `v1.` format. */
  readonly defaultKey: Buffer;
  /** Further keys (DATA_KEYS): newer ones, or old ones kept to open what they sealed. */
  readonly extra?: readonly RingKey[];
  /** The key to seal under (DATA_KEY_ID); the default key's when null or absent. */
  readonly currentId?: string | null;
}): KeyRing {
  const defaultId = derivedKeyId(options.defaultKey);
  const boxes = new Map<string, SecretBox>([[defaultId, createSecretBox(options.defaultKey)]]);
  for (const { id, key } of options.extra ?? []) {
    if (!isKeyId(id)) throw new KeyRingError(`key id "${id}" must be 1-32 of A-Z a-z 0-9 _ -`);
    if (boxes.has(id)) throw new KeyRingError(`key id ${id} is given twice`);
    boxes.set(id, createSecretBox(key));
  }
  const currentId = options.currentId ?? defaultId;
  const current = boxes.get(currentId);
  if (current === undefined) {
    throw new KeyRingError(`the current key ${currentId} is not one of the keys given`);
  }
  const boxOf = (id: string): SecretBox => {
    const box = boxes.get(id);
    if (box === undefined) throw new KeyRingError(`sealed under key ${id}, which is not given`);
    return box;
  };
  return {
    currentId,
    ids: [currentId, ...[...boxes.keys()].filter((id) => id !== currentId)],
    seal(plaintext, context) {
      // The box's `v1.<iv>.<tag>.<ciphertext>`, re-labelled with the key's id.
      return `${VERSION}.${currentId}.${current.seal(plaintext, context).slice(3)}`;
    },
    open(sealed, context) {
      if (sealed.startsWith('v1.')) return boxOf(defaultId).open(sealed, context);
      const [version, id, ...rest] = sealed.split('.');
      if (version !== VERSION || id === undefined || rest.length !== 3) {
        throw new KeyRingError('not a sealed value');
      }
      return boxOf(id).open(`v1.${rest.join('.')}`, context);
    },
    digest(data, context) {
      return createHmac('sha256', options.defaultKey)
        .update(`${context}\n`)
        .update(data)
        .digest('hex');
    },
    keyIdOf(sealed) {
      if (sealed.startsWith('v1.')) return defaultId;
      const [version, id] = sealed.split('.');
      return version === VERSION && id !== undefined && isKeyId(id) ? id : null;
    },
  };
}
