import { readFileSync, realpathSync, statSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Node 24 decides the format of each `.js` file it resolves from the `type` of the package
 * around it, and to read that `type` it rebuilds the whole package.json, parsing its `exports`
 * again, for every file. drizzle-orm's package.json is 175 KB (447 exports) and a database
 * command loads about 110 of its files: that re-parsing was over a second of a CLI run, more
 * than opening the database. This hook resolves the imports that cost it, a relative `.js`
 * import between files of an ESM package, itself, reading each package.json once. Anything
 * else, or any case it is not sure of (a symlink, a missing file, no or a broken package.json),
 * goes to Node's own resolver, which answers or fails as it always does.
 */

/** `./x.js` or `../x/y.js`, without a query, a hash or percent-escapes to decode. */
const RELATIVE_JS = /^\.\.?\/[^?#%]*\.js$/;

type ScopeType = 'module' | 'other';

export function registerResolveHook(): void {
  const resolveEsmFile = createEsmFileResolver();
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const url = resolveEsmFile(specifier, context.parentURL);
      if (url !== null) return { url, format: 'module', shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}

/**
 * The URL of the ES module a relative `.js` import names, when it is a real file in a
 * `"type": "module"` package scope; null for anything to leave to Node.
 */
export function createEsmFileResolver(): (
  specifier: string,
  parentUrl: string | undefined,
) => string | null {
  /** Directory → the `type` of the package scope it is in. */
  const scopes = new Map<string, ScopeType>();

  function scopeType(directory: string): ScopeType {
    const cached = scopes.get(directory);
    if (cached !== undefined) return cached;
    let type: ScopeType;
    // As Node: the search goes up to the nearest package.json, and stops at a node_modules
    // folder and at the root.
    if (basename(directory) === 'node_modules') {
      type = 'other';
    } else {
      const found = readPackageType(directory);
      const parent = dirname(directory);
      if (found !== 'absent') type = found;
      else type = parent === directory ? 'other' : scopeType(parent);
    }
    scopes.set(directory, type);
    return type;
  }

  return (specifier, parentUrl) => {
    if (!parentUrl?.startsWith('file:') || !RELATIVE_JS.test(specifier)) return null;
    const path = fileURLToPath(new URL(specifier, parentUrl));
    if (!isRealFile(path) || scopeType(dirname(path)) !== 'module') return null;
    return pathToFileURL(path).href;
  };
}

/** Whether the folder's package.json says `"type": "module"`; `absent` if it has none. */
function readPackageType(directory: string): 'absent' | ScopeType {
  let text: string;
  try {
    text = readFileSync(join(directory, 'package.json'), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'other';
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const isModule =
      typeof parsed === 'object' && parsed !== null && 'type' in parsed && parsed.type === 'module';
    return isModule ? 'module' : 'other';
  } catch {
    return 'other'; // Node's resolver reports it
  }
}

/** A regular file reached by its real path (Node resolves symlinks to their target). */
function isRealFile(path: string): boolean {
  if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return false;
  return realpathSync.native(path) === path;
}
