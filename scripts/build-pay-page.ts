// Builds the hosted pay page (src/pay-page/app) into dist/pay-page with esbuild: content-hashed
// files (served with a year of caching), the wallet code in its own chunk loaded after the
// summary shows, and manifest.json naming the entry files for the server's HTML shell.
// Run by `npm start`, `npm test` and the test setup; the output is never committed.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import {
  compress,
  ENCODED_SUFFIX,
  type Encoding,
  isCompressible,
  type PayPageManifest as ServedManifest,
} from '../src/pay-page/assets.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PAY_PAGE_SOURCE = join(root, 'src', 'pay-page', 'app');
export const PAY_PAGE_DIST = join(root, 'dist', 'pay-page');

/** The server's view of a build (main, styles, files), plus what the weight is measured over. */
export interface PayPageManifest extends ServedManifest {
  /**
   * What a payer's browser fetches to show a link and offer the wallets: the styles, the
   * entry and the chunks it imports, the wallet chunk it loads next and the chunks that one
   * imports. (Chunks loaded only during a payment are not counted.)
   */
  readonly firstLoad: readonly string[];
}

type Outputs = Metafile['outputs'];

/** `entry`, the files it imports, and (when `dynamic`) those it loads with import(): transitively. */
function closure(outputs: Outputs, entry: string, dynamicFromEntry: boolean): string[] {
  const seen = new Set<string>();
  const visit = (path: string, dynamic: boolean) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement') visit(imported.path, false);
      else if (imported.kind === 'dynamic-import' && dynamic) visit(imported.path, false);
    }
  };
  visit(entry, dynamicFromEntry);
  return [...seen];
}

/**
 * Each file's brotli and gzip variants beside it, where they make it smaller: compressed here
 * once rather than by every server start (at their best quality, that took a few hundred
 * milliseconds and over 15 MiB of memory that stayed resident).
 */
async function writeEncoded(
  outdir: string,
  files: readonly string[],
): Promise<Record<string, Encoding[]>> {
  const encodings: readonly Encoding[] = ['br', 'gzip'];
  const entries = await Promise.all(
    files.filter(isCompressible).map(async (name) => {
      const body = readFileSync(join(outdir, name));
      const smaller: Encoding[] = [];
      for (const encoding of encodings) {
        const compressed = await compress(body, encoding);
        if (compressed.length >= body.length) continue;
        writeFileSync(join(outdir, name + ENCODED_SUFFIX[encoding]), compressed);
        smaller.push(encoding);
      }
      return [name, smaller] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Builds into a staging folder beside `outdir`, then moves each file in (a rename replaces a
 * file whole), manifest.json last, and removes the files the new manifest does not name. A
 * server starting meanwhile (another `npm start`, a test's app) reads a whole build, the old
 * or the new: the folder is never empty or half written, and the names are content hashes.
 */
export async function buildPayPage(outdir = PAY_PAGE_DIST): Promise<PayPageManifest> {
  const staging = `${outdir}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const manifest = await buildInto(staging);
    mkdirSync(outdir, { recursive: true });
    const built = readdirSync(staging).filter((name) => name !== 'manifest.json');
    for (const name of built) renameSync(join(staging, name), join(outdir, name));
    renameSync(join(staging, 'manifest.json'), join(outdir, 'manifest.json'));
    const kept = new Set([...built, 'manifest.json']);
    for (const name of readdirSync(outdir)) {
      if (!kept.has(name)) rmSync(join(outdir, name), { recursive: true, force: true });
    }
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function buildInto(outdir: string): Promise<PayPageManifest> {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: {
      main: join(PAY_PAGE_SOURCE, 'main.ts'),
      styles: join(PAY_PAGE_SOURCE, 'styles.css'),
    },
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    target: ['es2022'],
    platform: 'browser',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    outdir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = result.metafile.outputs;
  const entry = (name: string) =>
    Object.entries(outputs).find(([, output]) => output.entryPoint?.endsWith(`app/${name}`))?.[0] ??
    '';
  const main = entry('main.ts');
  const styles = entry('styles.css');
  const files = Object.keys(outputs).map((path) => basename(path));
  const manifest: PayPageManifest = {
    main: basename(main),
    styles: basename(styles),
    files,
    encoded: await writeEncoded(outdir, files),
    firstLoad: [styles, ...closure(outputs, main, true)].map((path) => basename(path)),
  };
  if (!manifest.main || !manifest.styles) throw new Error('pay page: entry files missing');
  writeFileSync(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (import.meta.main) {
  const manifest = await buildPayPage();
  process.stdout.write(`pay page built: ${manifest.files.length} files in dist/pay-page\n`);
}
