// Runs before `npm start` and `npm test`. npm itself runs on the system Node (20 here), and it
// silently skips native optional packages whose `engines` need Node >= 22 (the local EVM's
// engine, for one). Those packages are in package-lock.json; if one that fits this machine is
// missing, install again with npm running on the Node 24 that `npm install` put in
// node_modules/.bin. On a machine whose npm already runs on Node >= 22 this finds nothing to do.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);

if (major < 24) {
  console.error(
    `payreq needs Node 24, found ${process.version}. Run \`npm install\` first: it installs Node 24 into node_modules/.bin, which npm scripts use.`,
  );
  process.exit(1);
}

function libc() {
  const header = process.report?.getReport?.().header;
  return header?.glibcVersionRuntime ? 'glibc' : 'musl';
}

function fits(entry) {
  const matches = (list, value) =>
    !list || list.includes(value) || list.every((v) => v.startsWith('!') && v !== `!${value}`);
  return (
    matches(entry.os, process.platform) &&
    matches(entry.cpu, process.arch) &&
    matches(entry.libc, libc())
  );
}

function missingNativePackages() {
  const lockPath = join(root, 'package-lock.json');
  if (!existsSync(lockPath)) return [];
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  const omitDev =
    (process.env.npm_config_omit ?? '').includes('dev') || process.env.NODE_ENV === 'production';
  return Object.entries(lock.packages ?? {})
    .filter(
      ([path, entry]) =>
        path.startsWith('node_modules/') && entry.optional && (entry.os || entry.cpu),
    )
    .filter(([, entry]) => fits(entry) && !(omitDev && entry.dev))
    .filter(([path]) => {
      // A nested package only matters when the package that holds it is installed.
      const nested = path.lastIndexOf('/node_modules/');
      return nested === -1 || existsSync(join(root, path.slice(0, nested)));
    })
    .map(([path]) => path)
    .filter((path) => !existsSync(join(root, path)));
}

const missing = missingNativePackages();
if (missing.length > 0) {
  console.error(
    `payreq: installing native packages npm skipped under an older Node: ${missing.join(', ')}`,
  );
  const binDir = join(root, 'node_modules', '.bin');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${binDir}:${process.env.PATH ?? ''}` },
  });
  const still = missingNativePackages();
  if (result.status !== 0 || still.length > 0) {
    console.error(
      `payreq: could not install ${still.join(', ') || 'native packages'}; run \`PATH=$PWD/node_modules/.bin:$PATH npm install\``,
    );
    process.exit(1);
  }
}
