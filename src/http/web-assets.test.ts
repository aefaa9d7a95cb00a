import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PAY_PAGE } from '../../scripts/build-web-app.ts';
import { PAY_PAGE_DIST } from '../pay-page/shell.ts';
import { loadWebAppBuild, negotiateEncoding } from './web-assets.ts';

/** A build folder written by hand: a manifest and the files given. */
function folder(manifest: unknown, files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'payreq-assets-'));
  writeFileSync(
    join(dir, 'manifest.json'),
    typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
  );
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  return dir;
}

const SCRIPT = `console.log(${JSON.stringify('hello '.repeat(200))});`;

describe('loadWebAppBuild', () => {
  it('reads the pay page from the folder the build script writes it to', () => {
    expect(PAY_PAGE_DIST).toBe(PAY_PAGE.dist);
  });

  it('reads every file the manifest names, typed by extension', async () => {
    const dir = folder(
      { main: 'main-A.js', styles: 'styles-B.css', files: ['main-A.js', 'styles-B.css', 'x.svg'] },
      { 'main-A.js': SCRIPT, 'styles-B.css': 'body{margin:0}', 'x.svg': '<svg/>' },
    );
    const loaded = await loadWebAppBuild(dir);
    if (loaded.status !== 'built') throw new Error(loaded.reason);
    const { assets } = loaded.build;
    expect([...assets.keys()]).toEqual(['main-A.js', 'styles-B.css', 'x.svg']);
    expect(assets.get('main-A.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('styles-B.css')?.contentType).toBe('text/css; charset=utf-8');
    expect(assets.get('x.svg')?.contentType).toBe('image/svg+xml');
  });

  it('compresses once, and keeps a file as it is when compressing would not shrink it', async () => {
    const dir = folder(
      { main: 'main-A.js', styles: 's.css', files: ['main-A.js', 's.css'] },
      { 'main-A.js': SCRIPT, 's.css': 'a{}' },
    );
    const loaded = await loadWebAppBuild(dir);
    if (loaded.status !== 'built') throw new Error(loaded.reason);
    const main = loaded.build.assets.get('main-A.js');
    const gzip = await main?.encoded('gzip');
    expect(gzip?.encoding).toBe('gzip');
    expect(gunzipSync(gzip?.body ?? Buffer.alloc(0)).toString()).toBe(SCRIPT);
    expect((await main?.encoded('gzip'))?.body).toBe(gzip?.body);
    expect(await loaded.build.assets.get('s.css')?.encoded('br')).toEqual({
      body: Buffer.from('a{}'),
      encoding: null,
    });
  });

  it('serves the variants the build wrote as they are, and a file it gave none as it is', async () => {
    // Marked bytes, not a real compression: the loader must take the build's, not make its own.
    const built = Buffer.from('the build made this');
    const dir = folder(
      {
        main: 'main-A.js',
        styles: 's.css',
        files: ['main-A.js', 's.css'],
        encoded: { 'main-A.js': ['br'], 's.css': [] },
      },
      { 'main-A.js': SCRIPT, 'main-A.js.br': built, 's.css': SCRIPT },
    );
    const loaded = await loadWebAppBuild(dir);
    if (loaded.status !== 'built') throw new Error(loaded.reason);
    const main = loaded.build.assets.get('main-A.js');
    expect(await main?.encoded('br')).toEqual({ body: built, encoding: 'br' });
    expect(await main?.encoded('gzip')).toEqual({ body: Buffer.from(SCRIPT), encoding: null });
    expect(await loaded.build.assets.get('s.css')?.encoded('gzip')).toEqual({
      body: Buffer.from(SCRIPT),
      encoding: null,
    });
  });

  it.each([
    ['no manifest', null, {}, /no manifest\.json/],
    ['a manifest that is not JSON', '{', {}, /not JSON/],
    ['no main', { styles: 's.css', files: ['s.css'] }, { 's.css': '' }, /must name main/],
    [
      'a path among the files',
      { main: 'm.js', styles: 's.css', files: ['m.js', 's.css', '../secret'] },
      { 'm.js': '', 's.css': '' },
      /plain file names/,
    ],
    [
      'a file that is not there',
      { main: 'm.js', styles: 's.css', files: ['m.js', 's.css'] },
      { 'm.js': '' },
      /names s\.css, which is not in/,
    ],
    [
      'a compressed variant that is not there',
      { main: 'm.js', styles: 's.css', files: ['m.js', 's.css'], encoded: { 'm.js': ['gzip'] } },
      { 'm.js': '', 's.css': '' },
      /names m\.js\.gz, which is not in/,
    ],
    [
      'variants of a file it does not name',
      { main: 'm.js', styles: 's.css', files: ['m.js', 's.css'], encoded: { '../x': ['br'] } },
      { 'm.js': '', 's.css': '' },
      /under encoded/,
    ],
  ])('reports a folder with %s as not built', async (_name, manifest, files, reason) => {
    const dir =
      manifest === null ? mkdtempSync(join(tmpdir(), 'payreq-assets-')) : folder(manifest, files);
    const loaded = await loadWebAppBuild(dir);
    expect(loaded.status).toBe('missing');
    if (loaded.status === 'missing') expect(loaded.reason).toMatch(reason);
  });
});

describe('negotiateEncoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip', 'gzip'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['BR;Q=0.5', 'br'],
    ['gzip;q=0, br;q=0', null],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['br;q=nonsense, gzip', 'gzip'],
  ])('%j → %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});
