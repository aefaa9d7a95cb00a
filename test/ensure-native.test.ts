import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './process.ts';

/**
 * scripts/ensure-native.mjs, run in a scratch project whose lockfile names a native optional
 * package for this platform, with a stand-in `npm` on PATH that records its calls and
 * installs the package.
 */
function scratchProject(installed: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'payreq-native-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(
    join(ROOT, 'scripts', 'ensure-native.mjs'),
    join(dir, 'scripts', 'ensure-native.mjs'),
  );
  const pkg = 'node_modules/@example/engine-native';
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      lockfileVersion: 3,
      packages: {
        '': { name: 'scratch' },
        [pkg]: {
          version: '1.0.0',
          optional: true,
          os: [process.platform],
          cpu: [process.arch],
          engines: { node: '>= 22' },
        },
        'node_modules/@example/other-os': { version: '1.0.0', optional: true, os: ['aix'] },
      },
    }),
  );
  if (installed) mkdirSync(join(dir, pkg), { recursive: true });
  const bin = join(dir, 'fake-bin');
  mkdirSync(bin);
  const log = join(dir, 'npm-calls.log');
  writeFileSync(
    join(bin, 'npm'),
    `#!/bin/sh\necho "$@" >> "${log}"\nmkdir -p "${join(dir, pkg)}"\n`,
  );
  chmodSync(join(bin, 'npm'), 0o755);
  const run = () =>
    spawnSync(process.execPath, [join(dir, 'scripts', 'ensure-native.mjs')], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
  const calls = () => {
    try {
      return readFileSync(log, 'utf8').trim().split('\n');
    } catch {
      return [];
    }
  };
  return { run, calls };
}

describe('ensure-native', () => {
  it('reinstalls when a native package for this platform is missing', () => {
    const project = scratchProject(false);
    const result = project.run();
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('@example/engine-native');
    expect(project.calls()).toEqual(['install --no-audit --no-fund']);
    expect(project.run().status).toBe(0);
    expect(project.calls()).toHaveLength(1);
  });

  it('does nothing when everything for this platform is there', () => {
    const project = scratchProject(true);
    expect(project.run().status).toBe(0);
    expect(project.calls()).toEqual([]);
  });
});
