import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Type-checks a copy of the client's sources with the client's own TypeScript (5, as the
 * package builds), with some files replaced or added: for tests that need a compile to fail or
 * pass on purpose. The copy sits inside the package (test-artifacts/, ignored by git) so that
 * its imports resolve to the same node_modules.
 */

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ARTIFACTS = join(PACKAGE, 'test-artifacts');

export function typeErrors(
  files: Readonly<Record<string, string>>,
  options: { readonly withTests?: readonly string[] } = {},
): string[] {
  mkdirSync(ARTIFACTS, { recursive: true });
  const root = mkdtempSync(join(ARTIFACTS, 'typecheck-'));
  try {
    cpSync(join(PACKAGE, 'src'), join(root, 'src'), { recursive: true });
    for (const test of options.withTests ?? []) {
      cpSync(join(PACKAGE, 'test', test), join(root, 'test', test));
    }
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const roots = [
      join(root, 'src', 'index.ts'),
      ...(options.withTests ?? []).map((test) => join(root, 'test', test)),
      ...Object.keys(files).map((path) => join(root, path)),
    ];
    const program = ts.createProgram(roots, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
    });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file ? diagnostic.file.fileName.slice(root.length + 1) : '';
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
