import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEsmFileResolver } from './resolve-hook.ts';

/** Files under a fresh folder: path → content. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'payreq-resolve-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const url = (root: string, path: string) => pathToFileURL(join(root, path)).href;
const MODULE = JSON.stringify({ type: 'module', exports: { '.': './index.js' } });

describe('the CLI resolve hook', () => {
  it('resolves a relative .js import inside a "type": "module" package, as Node would', () => {
    const root = tree({ 'pkg/package.json': MODULE, 'pkg/a/b.js': '', 'pkg/c.js': '' });
    const resolve = createEsmFileResolver();
    expect(resolve('../c.js', url(root, 'pkg/a/b.js'))).toBe(url(root, 'pkg/c.js'));
    expect(resolve('./b.js', url(root, 'pkg/a/x.js'))).toBe(url(root, 'pkg/a/b.js'));
  });

  it('leaves to Node what it cannot answer the same way', () => {
    const root = tree({
      'esm/package.json': MODULE,
      'esm/a.js': '',
      'esm/cjs/package.json': JSON.stringify({ type: 'commonjs' }),
      'esm/cjs/b.js': '',
      'esm/none/package.json': '{}',
      'esm/none/c.js': '',
      'esm/broken/package.json': '{"type": "module",',
      'esm/broken/d.js': '',
      'typed/package.json': MODULE,
      'typed/node_modules/untyped/e.js': '',
    });
    symlinkSync(join(root, 'esm/a.js'), join(root, 'esm/link.js'));
    const resolve = createEsmFileResolver();
    const from = url(root, 'esm/index.js');
    for (const [specifier, parent] of [
      ['./cjs/b.js', from], // nearest package.json says commonjs
      ['./none/c.js', from], // no type: Node detects the format
      ['./broken/d.js', from], // Node reports the broken package.json
      ['./missing.js', from], // Node reports the missing file
      ['./link.js', from], // Node resolves a symlink to its target
      ['./a.js?x=1', from],
      ['./%61.js', from],
      ['./a.mjs', from],
      ['esm', from], // bare specifiers: Node reads the package's exports
      ['./a.js', undefined],
      ['./a.js', 'data:text/javascript,'],
      // A package without a package.json of its own is not in the scope above node_modules.
      ['./e.js', url(root, 'typed/node_modules/untyped/index.js')],
    ] as const) {
      expect(resolve(specifier, parent), specifier).toBeNull();
    }
  });
});
