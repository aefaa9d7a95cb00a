import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ALTERNATE_STATUS, AlternateStatusError, AppError, ERROR_STATUS } from './errors.ts';

/**
 * `## 404 Not Found` sections of docs/errors.md, each with a table whose first column names
 * codes: every code with the statuses it is listed under, in order.
 */
function documentedCodes(): Map<string, number[]> {
  const text = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const codes = new Map<string, number[]>();
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
      const statuses = codes.get(code) ?? [];
      if (!statuses.includes(status)) statuses.push(status);
      codes.set(code, statuses.sort());
    }
  }
  return codes;
}

describe('error codes', () => {
  it('documents every code under the statuses it maps to, and nothing else', () => {
    const documented = documentedCodes();
    const alternates: Readonly<Record<string, number>> = ALTERNATE_STATUS;
    const mapped = Object.entries(ERROR_STATUS).map(([code, status]): [string, number[]] => {
      const alternate = alternates[code];
      return [code, alternate === undefined ? [status] : [status, alternate].sort()];
    });
    expect([...documented].sort()).toEqual(mapped.sort());
  });

  it('answers an alternate-status error with its second status and the same code', () => {
    const notBuilt = new AppError('crosschain_unavailable', 'not built');
    const down = new AlternateStatusError('crosschain_unavailable', 'down', { cause: 'x' });
    expect([notBuilt.statusCode, down.statusCode]).toEqual([400, 503]);
    expect(down.code).toBe('crosschain_unavailable');
    expect(down.cause).toBe('x');
    expect(down).toBeInstanceOf(AppError);
  });
});
