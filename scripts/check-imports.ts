/**
 * The import rule of docs/architecture.md, checked over every source file of `src/` (tests
 * aside): folders sit in layers and import only their own layer or the ones below; no two
 * folders import each other, even through others; no file imports itself back through others
 * (type-only imports count: they tie the files as tightly for a reader); only entry points and
 * the wiring import the sandbox; each browser app (the pay page's, the dashboard's) imports only
 * itself; nothing reaches outside `src/` (the test harness) but type imports of the published
 * client's webhook event types, and every relative import names a
 * `.ts` file (or, in a browser app, a `.tsx` one).
 * `node scripts/check-imports.ts` prints each breach with the import that makes it and exits 1.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';

/** Lowest first. A folder of `src/` (or an entry file at its root) in no layer is a breach. */
export const LAYERS: readonly (readonly string[])[] = [
  // web: the browser code the apps share, below every app.
  ['base', 'web'],
  ['chains', 'db', 'http', 'payments', 'config', 'metrics'],
  [
    'auth',
    'crosschain',
    'orchestrators',
    'fees',
    'branding',
    'currencies',
    'destinations',
    'requests',
    'secure-payments',
    'payouts',
    'payments-search',
    'detection',
    'webhooks',
    'pay-page',
    'sandbox',
    'v1',
    'journeys',
    'commerce',
    'payer',
    'offramp',
    'screening',
    'idempotency',
    'dashboard',
  ],
  ['server', 'workers'],
  ['main.ts', 'service.ts', 'cli.ts', 'cli'],
];

/** Who may import the sandbox (the local chain): the wiring and the entry points only. */
const SANDBOX_IMPORTERS = new Set(['server', 'workers', 'main.ts', 'service.ts', 'cli.ts', 'cli']);
/**
 * The browser apps, compiled apart for the DOM: each imports only itself and the browser code
 * they share (`web/`, which imports only itself).
 */
const BROWSER_APPS = ['pay-page/app/', 'dashboard/app/'];
const SHARED_BROWSER = 'web/';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

interface Import {
  readonly from: string;
  readonly to: string;
  /** `import type` (every name a type): erased when the sources run. */
  readonly typeOnly: boolean;
}

/**
 * The published client's webhook event types (packages/client): the one definition of what a
 * delivery carries, which the server builds its payloads as. Only type imports reach it, so
 * nothing of the package runs in the server.
 */
const CONTRACT = join(ROOT, 'packages/client/src/webhook-events.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * Every relative module a file names: imports, re-exports, `import()` and `typeof import()`;
 * with whether it names only types there (an `import type`, or a `typeof import()`).
 */
function specifiersOf(path: string): { specifier: string; typeOnly: boolean }[] {
  const code = readFileSync(path, 'utf8');
  const { module, program } = parseSync(path, code);
  const typeOnly = new Set(
    module.staticImports
      .filter((entry) => entry.entries.length > 0 && entry.entries.every((item) => item.isType))
      .map((entry) => entry.moduleRequest.value),
  );
  const found = [
    ...module.staticImports.map((entry) => entry.moduleRequest.value),
    ...module.staticExports.flatMap((entry) =>
      entry.entries.flatMap((item) => (item.moduleRequest ? [item.moduleRequest.value] : [])),
    ),
    ...module.dynamicImports.map((entry) =>
      code.slice(entry.moduleRequest.start + 1, entry.moduleRequest.end - 1),
    ),
  ];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as Record<string, unknown>;
    if (record.type === 'TSImportType') {
      const literal = JSON.stringify(record.argument ?? record.source).match(/"value":"([^"]+)"/);
      if (literal?.[1]) found.push(literal[1]);
    }
    for (const value of Object.values(record)) visit(value);
  };
  visit(program);
  return found
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ specifier, typeOnly: typeOnly.has(specifier) }));
}

/** The browser app a file belongs to, or null for the server's. */
function appOf(file: string): string | null {
  const path = relative(SRC, file);
  return [...BROWSER_APPS, SHARED_BROWSER].find((app) => path.startsWith(app)) ?? null;
}

/** `src/auth/siwe.ts` → `auth`; `src/main.ts` → `main.ts`. */
function folderOf(file: string): string {
  return relative(SRC, file).split('/')[0] ?? '';
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

/** Strongly connected groups of more than one node (Tarjan). */
function cycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === node) break;
    }
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return found;
}

/** The shortest way from the group's first member back to itself, members only. */
function shortestLoop(graph: ReadonlyMap<string, ReadonlySet<string>>, group: string[]): string[] {
  const start = group[0] ?? '';
  const paths = new Map<string, string[]>([[start, [start]]]);
  const queue = [start];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    for (const target of graph.get(node) ?? []) {
      if (target === start) return [...(paths.get(node) ?? []), start];
      if (!group.includes(target) || paths.has(target)) continue;
      paths.set(target, [...(paths.get(node) ?? []), target]);
      queue.push(target);
    }
  }
  return group;
}

export function checkImports(): string[] {
  const files = sourceFiles(SRC);
  const imports: Import[] = files.flatMap((from) =>
    specifiersOf(from).map(({ specifier, typeOnly }) => ({
      from,
      to: resolve(dirname(from), specifier),
      typeOnly,
    })),
  );
  const problems: string[] = [];
  const show = ({ from, to }: Import) => `${relative(ROOT, from)} → ${relative(ROOT, to)}`;

  for (const folder of new Set(files.map(folderOf))) {
    if (layerOf(folder) < 0) problems.push(`src/${folder} is in no layer of LAYERS`);
  }
  const folders = new Map<string, Set<string>>();
  const byFile = new Map<string, Set<string>>();
  for (const edge of imports) {
    // Node runs the sources by stripping types: a relative import names the .ts file itself
    // (a browser app's .tsx, which esbuild bundles).
    const named =
      edge.to.endsWith('.ts') || (appOf(edge.from) !== null && edge.to.endsWith('.tsx'));
    if (!named) problems.push(`import a .ts file by its own name: ${show(edge)}`);
    if (relative(SRC, edge.to).startsWith('..')) {
      if (edge.typeOnly && edge.to === CONTRACT) continue;
      problems.push(`the sources import only the sources: ${show(edge)}`);
      continue;
    }
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    byFile.set(edge.from, (byFile.get(edge.from) ?? new Set()).add(edge.to));
    const [fromApp, toApp] = [appOf(edge.from), appOf(edge.to)];
    const shared = toApp === SHARED_BROWSER && fromApp !== null;
    if (fromApp !== toApp && !shared) {
      problems.push(
        `a browser app shares code only through src/web, never with the server: ${show(edge)}`,
      );
    }
    if (from === to) continue;
    folders.set(from, (folders.get(from) ?? new Set()).add(to));
    if (layerOf(to) > layerOf(from)) {
      problems.push(`imports up the layers (${from} is below ${to}): ${show(edge)}`);
    }
    if (to === 'sandbox' && !SANDBOX_IMPORTERS.has(from)) {
      problems.push(`only the wiring and entry points import the sandbox: ${show(edge)}`);
    }
  }
  for (const group of cycles(folders)) {
    const loop = shortestLoop(folders, group);
    const hops = loop.slice(1).map((to, i) => {
      const from = loop[i] ?? '';
      const example = imports.find(
        (edge) => folderOf(edge.from) === from && folderOf(edge.to) === to,
      );
      return example ? show(example) : `${from} → ${to}`;
    });
    problems.push(`folders import each other (${loop.join(' → ')}): ${hops.join('; ')}`);
  }
  for (const group of cycles(byFile)) {
    problems.push(
      `files import each other: ${group.map((file) => relative(ROOT, file)).join(', ')}`,
    );
  }
  return problems;
}

if (import.meta.main) {
  const problems = checkImports();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
}
