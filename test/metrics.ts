import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';

/** Reading `/metrics` as Prometheus does: through the text-format parser, never by regex. */

export type Scrape = readonly MetricFamily[];

/** `GET /metrics` with the bearer token; fails the test unless it answers 200 in the text format. */
export async function scrape(t: TestApp, token: string): Promise<Scrape> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return withHistogramCounts(res.body);
}

/**
 * The parser (1.1.1) folds a labelled histogram's series into one sample of buckets, losing
 * their labels and counts: each histogram's `_count` series are parsed again as a counter
 * family of their own (`<name>_count`), which keeps them apart by label.
 */
function withHistogramCounts(text: string): Scrape {
  const families = parsePrometheusTextFormat(text);
  const lines = text.split('\n');
  const counts = families
    .filter((f) => f.type === 'HISTOGRAM')
    .flatMap((f) => {
      const name = `${f.name}_count`;
      const series = lines.filter(
        (line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `),
      );
      return parsePrometheusTextFormat(`# TYPE ${name} counter\n${series.join('\n')}\n`);
    });
  return [...families, ...counts];
}

/** The family of `name`; fails the test when the scrape has none. */
export function family(families: Scrape, name: string): MetricFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`no metric ${name} in the scrape`);
  return found;
}

/**
 * The value of the sample of `name` whose labels include `labels`; 0 when no sample has them
 * yet (a counter nothing has moved is not exported).
 */
export function sample(
  families: Scrape,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const found = families.find((f) => f.name === name);
  const match = found?.metrics.find((m) =>
    Object.entries(labels).every(([key, value]) => m.labels?.[key] === value),
  );
  return match?.value === undefined ? 0 : Number(match.value);
}
