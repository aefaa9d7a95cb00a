// Bundles the server (src/cli.ts, as `payreq serve` runs it) into dist/server with esbuild, for
// `npm start` and the bench. Run from sources, a start loads ~1,700 module files: Node
// type-strips ours, resolves every import (re-reading package.json scopes) and allocates so much
// on the way that V8 grows its young generation to 128 MiB. The bundle is a few dozen files:
// start-up to listening and resident memory about halve (bench/http.bench.ts, `startup`).
// Tests, the CLI (`npx payreq`) and `node src/cli.ts serve` keep running the sources.
// Never committed; `npm start` rebuilds it when a file it was built from has changed.
import { createHash, randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_DIST = join(root, 'dist', 'server');
/** What `npm start` runs: `node dist/server/cli.js serve`. */
export const SERVER_ENTRY = join(SERVER_DIST, 'cli.js');

/**
 * Left to Node, loaded from node_modules as they are: native addons (and the packages that pick
 * one per platform), PGlite (its WebAssembly and data files, loaded by an engine of its own),
 * and what only the sandbox or a Redis setup loads (Hardhat and its EDR, solc, ioredis), which
 * need no bundling to stay off a plain start.
 */
const EXTERNAL = [
  '@electric-sql/pglite',
  '@node-rs/argon2',
  'hardhat',
  '@nomicfoundation/*',
  'solc',
  'ioredis',
  // Optional native driver `pg` asks for only with `native: true`, which we never set.
  'pg-native',
];

/**
 * A bundled module's own location, as it had it: code that finds files next to itself
 * (migrations, the pay page build, contract artifacts, a package's own package.json) reads the
 * same files from the bundle as from the sources. `import.meta.url` becomes the source file's
 * URL; CommonJS modules that name `__dirname` or `__filename` get theirs declared.
 */
const ownLocation: Plugin = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.(?:[cm]?js|ts)$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const meta = source.includes('import.meta.url');
      const cjs = /\b__(?:dirname|filename)\b/.test(source);
      if (!meta && !cjs) return undefined;
      let contents = meta
        ? source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        : source;
      if (cjs) {
        contents = `var __dirname = ${JSON.stringify(dirname(args.path))}, __filename = ${JSON.stringify(args.path)};\n${contents}`;
      }
      return { contents, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
};

/** Written last by a build: what it was made from, to tell whether the next can be skipped. */
const STAMP = 'build.json';

interface Stamp {
  /** esbuild's version and this script's text: a change to either changes the output. */
  readonly recipe: string;
  /** Every file bundled (relative to the repository), with its size and modification time. */
  readonly inputs: Readonly<Record<string, readonly [number, number]>>;
  readonly outputs: readonly string[];
}

function recipe(): string {
  const esbuildPackage = createRequire(import.meta.url).resolve('esbuild/package.json');
  return createHash('sha256')
    .update(readFileSync(esbuildPackage))
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest('hex');
}

function fileStamp(path: string): [number, number] | null {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? [stat.size, stat.mtimeMs] : null;
}

/** Whether outdir holds a build of exactly the files as they are now. */
function upToDate(outdir: string): boolean {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(join(outdir, STAMP), 'utf8')) as Stamp;
  } catch {
    return false;
  }
  if (stamp.recipe !== recipe()) return false;
  for (const [path, [size, mtime]] of Object.entries(stamp.inputs)) {
    const now = fileStamp(join(root, path));
    if (now?.[0] !== size || now[1] !== mtime) return false;
  }
  return stamp.outputs.every((name) => fileStamp(join(outdir, name)) !== null);
}

/** Builds dist/server unless it is up to date; resolves true when it built. */
export async function buildServer(outdir = SERVER_DIST): Promise<boolean> {
  if (upToDate(outdir)) return false;
  // Loaded only to build: an up-to-date check answers without it.
  const { build } = await import('esbuild');
  const started = Date.now();
  // Until this build has written its own, no stamp may call the folder current.
  rmSync(join(outdir, STAMP), { force: true });
  const result = await build({
    entryPoints: { cli: join(root, 'src', 'cli.ts') },
    bundle: true,
    // Each `await import()` stays a chunk of its own, loaded when reached: the sandbox, the
    // other CLI commands and the PGlite driver cost nothing on a start that does not use them.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    external: EXTERNAL,
    plugins: [ownLocation],
    // CommonJS packages bundled into ES modules still call require() for Node's builtins.
    banner: {
      js: "import { createRequire as __payreqCreateRequire } from 'node:module'; const require = __payreqCreateRequire(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: root,
    metafile: true,
    write: false,
  });
  // Several `npm start`s may build at once, and a running server may still load a lazy chunk:
  // each file is written whole under a temporary name and renamed into place (chunk names carry
  // their content's hash, so one build never changes a file another is reading).
  mkdirSync(outdir, { recursive: true });
  const writeWhole = (path: string, contents: Uint8Array | string) => {
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temporary, contents);
    renameSync(temporary, path);
  };
  const outputs = result.outputFiles.map((file) => basename(file.path));
  for (const file of result.outputFiles) writeWhole(file.path, file.contents);
  const kept = new Set([...outputs, STAMP]);
  for (const name of readdirSync(outdir)) {
    if (!kept.has(name) && !name.endsWith('.tmp')) rmSync(join(outdir, name), { force: true });
  }
  const inputs: Record<string, [number, number]> = {};
  for (const path of Object.keys(result.metafile.inputs)) {
    const now = fileStamp(join(root, path));
    // Edited while esbuild read it: the bundle may hold either text, so no stamp says it is
    // current, and the next build runs.
    if (now && now[1] >= started) return true;
    if (now) inputs[path] = now;
  }
  const stamp: Stamp = { recipe: recipe(), inputs, outputs };
  writeWhole(join(outdir, STAMP), JSON.stringify(stamp));
  return true;
}

if (import.meta.main) {
  const built = await buildServer();
  process.stdout.write(built ? 'server built: dist/server\n' : 'server up to date: dist/server\n');
}
