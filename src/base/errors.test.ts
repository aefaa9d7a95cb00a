import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from './errors.ts';

/** `## 404 Not Found` sections of docs/errors.md, each with a table whose first column names codes. */
function documentedCodes(): Map<string, number> {
  const text = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const codes = new Map<string, number>();
  let status: number | null = null;
  for (const line of text.split('\n')) {
    const heading = /^## (\d{3}) (.+)$/.exec(line);
    if (heading) {
      status = Number(heading[1]);
      expect(heading[2], `heading of ${status}`).toBe(STATUS_CODES[status]);
      continue;
    }
    if (line.startsWith('## ')) status = null;
    if (status === null || !line.startsWith('| `')) continue;
    const firstCell = line.split(' | ')[0] ?? '';
    for (const [, code] of firstCell.matchAll(/`([a-z_0-9]+)`/g)) {
      if (code === undefined) continue;
      const earlier = codes.get(code);
      if (earlier !== undefined && earlier !== status) {
        throw new Error(`${code} is documented under ${earlier} and ${status}`);
      }
      codes.set(code, status);
    }
  }
  return codes;
}

describe('error codes', () => {
  it('documents every code under the status it maps to, and nothing else', () => {
    const documented = documentedCodes();
    const mapped = new Map<string, number>(Object.entries(ERROR_STATUS));
    expect([...documented].sort()).toEqual([...mapped].sort());
  });
});
