/**
 * parse-prometheus-text-format ships no types: the little of its output the metrics tests read.
 * Counters, gauges and untyped samples carry `value`; histograms carry their buckets instead.
 */
declare module 'parse-prometheus-text-format' {
  export interface Sample {
    readonly labels?: Readonly<Record<string, string>>;
    readonly value?: string;
    readonly buckets?: Readonly<Record<string, string>>;
  }
  export interface MetricFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
