import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, run } from '../../../test/process.ts';
import { matchShown, typescriptProgram } from '../../../test/readme-steps.ts';
import { type ClientRig, startRig } from './server.ts';
import { typeErrors } from './typecheck.ts';

/**
 * The package as it is published: built with its own TypeScript into dist/ (as a fresh clone's
 * `npm test` does here), importing nothing outside itself but its dependency and Node; and the
 * READMEs' programs written with it, type-checked against the build and run by Node from a
 * file, as a user runs them, against a real payreq, each `// prints` line matched against
 * what the program printed (`<name>` a value, `…` anything; test/readme-steps.ts).
 */

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(PACKAGE, 'dist');

let rig: ClientRig;

beforeAll(async () => {
  const build = await run('npm', ['run', 'build', '-w', '@payreq/client'], process.env, {
    timeoutMs: 240_000,
  });
  expect(build.code, `${build.stdout}\n${build.stderr}`).toBe(0);
  rig = await startRig();
}, 300_000);
afterAll(() => rig?.close());

describe('the built package', () => {
  it('ships JS and types for both entries, importing only openapi-fetch and Node', async () => {
    const files = readdirSync(DIST);
    for (const entry of ['index', 'webhooks']) {
      expect(files).toContain(`${entry}.js`);
      expect(files).toContain(`${entry}.d.ts`);
    }
    const imported = files
      .filter((file) => file.endsWith('.js'))
      .flatMap((file) => [
        // Statements only: a doc comment may show an import a user writes.
        ...readFileSync(join(DIST, file), 'utf8').matchAll(
          /^(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gm,
        ),
      ])
      .map((match) => match[1] ?? '')
      .filter((specifier) => !specifier.startsWith('./'));
    expect(new Set(imported)).toEqual(new Set(['openapi-fetch', 'node:crypto']));

    const built = await import(join(DIST, 'index.js'));
    const payreq = built.createClient({ baseUrl: rig.baseUrl, apiKey: rig.apiKey });
    const { data } = await payreq.GET('/v2/currencies', { params: { query: { network: 'base' } } });
    expect((data as { id: string }[]).map((currency) => currency.id)).toContain('USDC-base');
  });
});

/** Writes the program beside the package (so `@payreq/client` resolves to it), runs it. */
async function runProgram(code: string): Promise<{ code: number | null; stdout: string }> {
  mkdirSync(join(PACKAGE, 'test-artifacts'), { recursive: true });
  const dir = mkdtempSync(join(PACKAGE, 'test-artifacts', 'readme-'));
  try {
    const file = join(dir, 'example.ts');
    writeFileSync(file, code);
    const env = {
      ...process.env,
      PAYREQ_URL: rig.baseUrl,
      PAYREQ_API_KEY: rig.apiKey,
      DESTINATION_ID: rig.destinationId,
    };
    const result = await run(process.execPath, [file], env, { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each([
  ['packages/client/README.md', '## Usage'],
  ['README.md', '## Typed client'],
])('%s, %s', (readmePath, heading) => {
  it('type-checks and runs as written, printing what it shows', async () => {
    const hookPort = await freePort();
    // The README's receiver listens on 9000; here on a free port, and everything else as written.
    const { code, shows } = typescriptProgram(
      readFileSync(join(ROOT, readmePath), 'utf8')
        .replaceAll('http://127.0.0.1:9000', `http://127.0.0.1:${hookPort}`)
        .replaceAll('.listen(9000,', `.listen(${hookPort},`),
      heading,
    );
    expect(code).not.toMatch(/\b9000\b/);
    expect(typeErrors({ 'readme/example.ts': code })).toEqual([]);

    const { stdout } = await runProgram(code);
    const printed = stdout.trim().split('\n');
    expect(printed).toHaveLength(shows.length);
    const known = new Map<string, string>();
    for (const [i, shown] of shows.entries()) {
      for (const [name, value] of matchShown(shown, printed[i] ?? '', known)) {
        known.set(name, value);
      }
    }
    // What it printed is what the server holds: the link and its request exist.
    const token = known.get('<token>') ?? '';
    const link = await rig.t.app.inject({
      method: 'GET',
      url: `/v2/secure-payments/${token}`,
      headers: { 'x-api-key': rig.apiKey },
    });
    expect(link.statusCode).toBe(200);
    expect(link.json()).toMatchObject({ token, requestIds: [known.get('<requestId>')] });
  }, 180_000);
});
