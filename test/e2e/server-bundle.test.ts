import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../scripts/build-server.ts';
import { processEnv, ROOT, type ServerProcess, startServer } from '../process.ts';

/**
 * `npm start` runs the server bundled by scripts/build-server.ts, not the sources the rest of
 * the suite runs: here the bundle itself starts and serves, with what it finds next to the
 * sources (migrations, the pay page build, Swagger UI's files) found from the bundle too.
 */
describe('the server bundle', () => {
  // Inside the repository, as dist/server is: the packages left out of the bundle resolve
  // from its node_modules.
  const outdir = join(ROOT, 'dist', `server-test-${randomBytes(4).toString('hex')}`);
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    expect(await buildServer(outdir)).toBe(true);
    // A new database: the bundle migrates it from src/db/migrations.
    server = await startServer(processEnv(), { entry: join(outdir, 'cli.js') });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(outdir, { recursive: true, force: true });
  });

  it('migrates a new database and serves the API, its reference and the pay page', async () => {
    const url = server?.url ?? '';
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const anonymous = await fetch(`${url}/v2/request`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ statusCode: 401 });
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(openapi.paths)).toContain('/v2/secure-payments');
    expect((await fetch(`${url}/docs`)).status).toBe(200);
    const css = await fetch(`${url}/docs/static/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(await css.text()).toContain('.swagger-ui');
    // The pay page the test setup built, in dist/pay-page.
    expect(server?.output()).not.toContain('the pay page is not built');
  });

  it('is rebuilt only when a file it was built from changed', async () => {
    expect(await buildServer(outdir)).toBe(false);
    const stampPath = join(outdir, 'build.json');
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8')) as {
      inputs: Record<string, [number, number]>;
    };
    const main = stamp.inputs['src/main.ts'];
    if (!main) throw new Error('src/main.ts is not among the inputs');
    // As if src/main.ts had been edited since.
    stamp.inputs['src/main.ts'] = [main[0], main[1] - 1_000];
    writeFileSync(stampPath, JSON.stringify(stamp));
    expect(await buildServer(outdir)).toBe(true);
    expect(await buildServer(outdir)).toBe(false);
  });
});
