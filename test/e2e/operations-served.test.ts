import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../app.ts';
import { pathShape, referenceUnion } from '../reference-versions.ts';

/**
 * Every operation of Request API 0.13.0 and 0.31.0 and Auth API 0.14.0 is served, or named
 * below with the later issue that brings it. An unserved operation missing from the table is
 * one issue 32 should have served; a table entry we now serve must leave the table.
 */

const NOT_YET_SERVED: Readonly<Record<string, string>> = {};

describe('the reference operations we do not serve yet', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Each operation by the name its newest description gives it (`GET /v2/request/{requestId}`). */
  function operations(): { name: string; key: string }[] {
    return [...referenceUnion().values()].map((operation) => ({
      key: operation.key,
      name: `${operation.method} ${operation.descriptions.get(operation.primary)?.path}`,
    }));
  }

  it('are each named with the issue that brings them, and none of them is served', () => {
    const served = new Set(t.routes.map((route) => `${route.method} ${pathShape(route.url)}`));
    const all = operations();
    const unserved = all.filter((op) => !served.has(op.key)).map((op) => op.name);
    // Unserved and in no later issue: this issue should have served them.
    expect(unserved.filter((name) => !(name in NOT_YET_SERVED)).sort()).toEqual([]);
    // Served now: the table must let go of them.
    expect(Object.keys(NOT_YET_SERVED).filter((name) => !unserved.includes(name))).toEqual([]);
  });

  it('counts the three descriptions together, each operation once', () => {
    const all = operations();
    expect(new Set(all.map((op) => op.name)).size).toBe(all.length);
    expect(all.length).toBe(114);
  });
});
