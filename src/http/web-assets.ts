import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/**
 * A built browser app (the pay page, the dashboard: `npm run build`, scripts/build-web-app.ts):
 * content-hashed files, their compressed variants and a manifest naming them. Read once at
 * start into memory; only the files the manifest lists are ever served, so no request path
 * reaches the file system.
 */

/** Where the build script writes the app `name` (`dist/<name>`). */
export function webAppDist(name: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', name);
}

/** What a build names: hashed file names only, never a path. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};
/** Already compressed: a second pass only costs time. */
const PRECOMPRESSED = new Set(['.png', '.woff2']);

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export type Encoding = 'br' | 'gzip';

/** The name of a file's variant in an encoding, beside it in the build. */
export const ENCODED_SUFFIX: Readonly<Record<Encoding, string>> = { br: '.br', gzip: '.gz' };

export interface WebAppManifest {
  /** The entry script and style sheet the HTML shell names. */
  readonly main: string;
  readonly styles: string;
  /** Every output file. */
  readonly files: readonly string[];
  /**
   * The variants the build compressed beside each file (`<file>.br`, `<file>.gz`), in the
   * encodings that make it smaller: a file without one is served as it is. Absent (a build put
   * together some other way), each file is compressed on its first request instead.
   */
  readonly encoded?: Readonly<Record<string, readonly Encoding[]>>;
}

interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
  /**
   * The file in an encoding, or itself when encoding does not make it smaller: the build's
   * variant, or one made on first use and kept.
   */
  encoded(
    encoding: Encoding,
  ): Promise<{ readonly body: Buffer; readonly encoding: Encoding | null }>;
}

interface WebAppBuild {
  readonly manifest: WebAppManifest;
  readonly assets: ReadonlyMap<string, Asset>;
}

export type LoadedBuild =
  | { readonly status: 'built'; readonly build: WebAppBuild }
  | { readonly status: 'missing'; readonly reason: string };

/** The build in `dir`, or why there is none (not built, or a manifest naming what is not there). */
export async function loadWebAppBuild(dir: string): Promise<LoadedBuild> {
  let text: string;
  try {
    text = await readFile(join(dir, 'manifest.json'), 'utf8');
  } catch {
    return { status: 'missing', reason: `no manifest.json in ${dir}` };
  }
  const manifest = parseManifest(text);
  if (typeof manifest === 'string') return { status: 'missing', reason: manifest };
  const missing = (file: string): LoadedBuild => ({
    status: 'missing',
    reason: `manifest.json names ${file}, which is not in ${dir}`,
  });
  const assets = new Map<string, Asset>();
  for (const name of manifest.files) {
    const body = await readOrNull(join(dir, name));
    if (body === null) return missing(name);
    let built: Map<Encoding, Buffer> | null = null;
    if (manifest.encoded) {
      built = new Map();
      for (const encoding of manifest.encoded[name] ?? []) {
        const file = name + ENCODED_SUFFIX[encoding];
        const variant = await readOrNull(join(dir, file));
        if (variant === null) return missing(file);
        built.set(encoding, variant);
      }
    }
    assets.set(name, createAsset(name, body, built));
  }
  return { status: 'built', build: { manifest, assets } };
}

function readOrNull(path: string): Promise<Buffer | null> {
  return readFile(path).catch(() => null);
}

function parseManifest(text: string): WebAppManifest | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'manifest.json is not JSON';
  }
  const { main, styles, files, encoded } = (value ?? {}) as Record<string, unknown>;
  if (
    typeof main !== 'string' ||
    typeof styles !== 'string' ||
    !Array.isArray(files) ||
    !files.every((file): file is string => typeof file === 'string' && FILE_NAME.test(file)) ||
    !files.includes(main) ||
    !files.includes(styles)
  ) {
    return 'manifest.json must name main, styles and files (plain file names, main and styles among them)';
  }
  if (encoded === undefined) return { main, styles, files };
  if (!isEncodedList(encoded, files)) {
    return 'manifest.json must list, under encoded, files it names, each with br or gzip';
  }
  return { main, styles, files, encoded };
}

function isEncodedList(
  value: unknown,
  files: readonly string[],
): value is Record<string, readonly Encoding[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(
    ([file, encodings]) =>
      files.includes(file) &&
      Array.isArray(encodings) &&
      encodings.every((encoding) => encoding === 'br' || encoding === 'gzip'),
  );
}

/** Whether compressing a file of this name may make it smaller (not for PNG, WOFF2). */
export function isCompressible(name: string): boolean {
  return !PRECOMPRESSED.has(extname(name).toLowerCase());
}

/** Brotli or gzip at their best, for text: what the build writes and a request may make. */
export function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : gzipped(body, { level: constants.Z_BEST_COMPRESSION });
}

/**
 * `built`: the variants the build made (an encoding it has none of does not make the file
 * smaller); null: none made, so each encoding is compressed on first use and kept.
 */
function createAsset(
  name: string,
  body: Buffer,
  built: ReadonlyMap<Encoding, Buffer> | null,
): Asset {
  const contentType = CONTENT_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream';
  const compressible = isCompressible(name);
  const variants = new Map<Encoding, Promise<Buffer>>();
  const variant = (encoding: Encoding): Promise<Buffer> => {
    let made = variants.get(encoding);
    if (made === undefined) {
      made = compress(body, encoding);
      variants.set(encoding, made);
    }
    return made;
  };
  return {
    contentType,
    body,
    encoded: async (encoding) => {
      if (built !== null) {
        const ready = built.get(encoding);
        return ready ? { body: ready, encoding } : { body, encoding: null };
      }
      if (!compressible) return { body, encoding: null };
      const compressed = await variant(encoding);
      return compressed.length < body.length
        ? { body: compressed, encoding }
        : { body, encoding: null };
    },
  };
}

/**
 * The encoding to answer in, from `Accept-Encoding`: brotli, else gzip, among those the
 * request accepts (a `q=0` refuses one; `*` stands for any not named).
 */
export function negotiateEncoding(header: string | string[] | undefined): Encoding | null {
  if (header === undefined) return null;
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (!coding) continue;
    const q = params.map((p) => /^\s*q=(.*)$/.exec(p)?.[1]).find((v) => v !== undefined);
    // A weight that is not a number counts as 0: the request did not clearly accept it.
    weights.set(coding.trim(), q === undefined ? 1 : Number(q.trim()) || 0);
  }
  const accepts = (coding: Encoding) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return null;
}
