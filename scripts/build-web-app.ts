// Builds a browser app (the hosted pay page, src/pay-page/app) into dist/<name> with esbuild:
// content-hashed files (served with a year of caching), code loaded later in chunks of its own
// (the pay page's wallet code, after the summary shows), and manifest.json naming the entry
// files for the server's HTML shell. Run by `npm start`, `npm test` and the test setup; the
// output is never committed.
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import {
  compress,
  ENCODED_SUFFIX,
  type Encoding,
  isCompressible,
  type WebAppManifest as ServedManifest,
  webAppDist,
} from '../src/http/web-assets.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A browser app: its source folder holds `main.ts` (or `main.tsx`) and `styles.css`. */
export interface WebApp {
  /** What messages call it. */
  readonly title: string;
  readonly source: string;
  /** Where it is built, and the server reads it (`webAppDist`). */
  readonly dist: string;
  /** The most compressed bytes (gzip) its first load may weigh (scripts/web-app-weight.ts). */
  readonly budgetBytes: number;
}

export const PAY_PAGE: WebApp = {
  title: 'the pay page',
  source: join(root, 'src', 'pay-page', 'app'),
  dist: webAppDist('pay-page'),
  budgetBytes: 150 * 1024,
};

export const DASHBOARD: WebApp = {
  title: 'the dashboard',
  source: join(root, 'src', 'dashboard', 'app'),
  dist: webAppDist('dashboard'),
  budgetBytes: 200 * 1024,
};

/** Every app `npm run build` builds. */
export const WEB_APPS: readonly WebApp[] = [PAY_PAGE, DASHBOARD];

/** The server's view of a build (main, styles, files), plus what the weight is measured over. */
export interface WebAppManifest extends ServedManifest {
  /**
   * What a browser fetches on first load: the styles, the entry and the chunks it imports,
   * and those it loads with import() and the chunks they import (the pay page's wallet chunk,
   * loaded as soon as the summary shows). Chunks loaded only later are not counted.
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
export async function buildWebApp(app: WebApp, outdir = app.dist): Promise<WebAppManifest> {
  const staging = `${outdir}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const manifest = await buildInto(app, staging);
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

/** The app's entry file: `main.tsx` where it renders JSX, else `main.ts`. */
function mainOf(app: WebApp): string {
  return existsSync(join(app.source, 'main.tsx')) ? 'main.tsx' : 'main.ts';
}

async function buildInto(app: WebApp, outdir: string): Promise<WebAppManifest> {
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints: {
      main: join(app.source, mainOf(app)),
      styles: join(app.source, 'styles.css'),
    },
    // Entry points in the metafile are named relative to it.
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    // The dashboard's components are JSX for Preact (the pay page has none).
    jsx: 'automatic',
    jsxImportSource: 'preact',
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
    Object.entries(outputs).find(
      ([, output]) =>
        output.entryPoint !== undefined && join(root, output.entryPoint) === join(app.source, name),
    )?.[0] ?? '';
  const main = entry(mainOf(app));
  const styles = entry('styles.css');
  const files = Object.keys(outputs).map((path) => basename(path));
  const manifest: WebAppManifest = {
    main: basename(main),
    styles: basename(styles),
    files,
    encoded: await writeEncoded(outdir, files),
    firstLoad: [styles, ...closure(outputs, main, true)].map((path) => basename(path)),
  };
  if (!manifest.main || !manifest.styles) throw new Error(`${app.title}: entry files missing`);
  writeFileSync(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (import.meta.main) {
  for (const app of WEB_APPS) {
    const manifest = await buildWebApp(app);
    process.stdout.write(`${app.title} built: ${manifest.files.length} files in ${app.dist}\n`);
  }
}
