import { open, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { BRANDING_PATH, extensionOf } from './fields.ts';

/**
 * The operator's branding folder (BRANDING_DIR), read-only: logos and legal pages the
 * brandings name by `/branding/<path>`. Only the extensions a branding may name are served,
 * never a folder (no listing), never a file outside the folder (no `..`, no symlink out).
 */

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
  html: 'text/html; charset=utf-8',
};

/** A logo or a legal page larger than this is not served. */
const MAX_ASSET_BYTES = 5 * 1024 * 1024;

export interface BrandingAsset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly modifiedAt: Date;
}

/** The file `/branding/<relative>` names, or null when there is none it may serve. */
export async function readBrandingAsset(
  dir: string,
  relative: string,
): Promise<BrandingAsset | null> {
  const path = `/branding/${relative}`;
  if (!BRANDING_PATH.test(path) || path.includes('..')) return null;
  const contentType = CONTENT_TYPES[extensionOf(path)];
  if (contentType === undefined) return null;
  let root: string;
  let file: string;
  try {
    root = await realpath(dir);
    file = await realpath(join(root, ...relative.split('/')));
  } catch {
    return null; // no folder, or no such file
  }
  if (!file.startsWith(root + sep)) return null;
  const handle = await open(file, 'r').catch(() => null);
  if (handle === null) return null;
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > MAX_ASSET_BYTES) return null;
    return { body: await handle.readFile(), contentType, modifiedAt: stats.mtime };
  } finally {
    await handle.close();
  }
}
