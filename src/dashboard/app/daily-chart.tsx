import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';

/** One day's amounts of one currency, as the summary gives them. */
export interface DailyAmounts {
  readonly day: string;
  readonly received: string;
  readonly paidOut: string;
}

const DAY_S = 24 * 60 * 60;
const HEIGHT = 220;
/** The style sheet's colours: received in the action colour, paid out in a muted one. */
const RECEIVED = '#0f766e';
const PAID_OUT = '#b45309';

/** Every day from `since` to today (UTC, seconds), with the amounts of those that had payments. */
function series(since: string, days: number, daily: readonly DailyAmounts[]) {
  const start = Date.parse(`${since}T00:00:00Z`) / 1000;
  const byDay = new Map(daily.map((d) => [d.day, d]));
  const x: number[] = [];
  // A day without payments draws nothing (null), not a bar of zero height.
  const received: (number | null)[] = [];
  const paidOut: (number | null)[] = [];
  const value = (amount: string | undefined) => {
    const number = Number(amount ?? 0);
    return number === 0 ? null : number;
  };
  for (let i = 0; i < days; i++) {
    const at = start + i * DAY_S;
    const day = byDay.get(new Date(at * 1000).toISOString().slice(0, 10));
    x.push(at);
    received.push(value(day?.received));
    paidOut.push(value(day?.paidOut));
  }
  return [x, received, paidOut] as uPlot.AlignedData;
}

/**
 * Received and paid out per day, as bars (uPlot, on a canvas). The numbers are in the table
 * beside it: the canvas is a picture for the eye, hidden from screen readers.
 */
export function DailyChart(props: {
  readonly since: string;
  readonly days: number;
  readonly symbol: string;
  readonly daily: readonly DailyAmounts[];
}) {
  const holder = useRef<HTMLDivElement>(null);
  const [library, setLibrary] = useState<typeof uPlot | null>(null);
  // Loaded apart from the app: a browser whose language tag uPlot's number format refuses
  // (headless Chromium under LANG=C says "en-US@posix") loses the picture, not the page.
  useEffect(() => {
    import('uplot').then(
      (loaded) => setLibrary(() => loaded.default),
      () => undefined,
    );
  }, []);
  useEffect(() => {
    const element = holder.current;
    if (element === null || library === null) return;
    const uPlot = library;
    // Bars side by side, received left of each day and paid out right of it.
    const bars = (align: -1 | 1) => {
      const paths = uPlot.paths.bars?.({ size: [0.4, 16], align });
      return paths === undefined ? {} : { paths };
    };
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 240),
        height: HEIGHT,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        // Half a day either side, so the first and last days' bars show whole.
        scales: {
          x: { time: true, range: (_chart, min, max) => [min - DAY_S / 2, max + DAY_S / 2] },
        },
        axes: [
          // Whole days only (a week's axis would otherwise tick every twelve hours).
          { incrs: [DAY_S, 2 * DAY_S, 7 * DAY_S, 14 * DAY_S, 30 * DAY_S] },
          { values: (_chart, ticks) => ticks.map((tick) => tick.toLocaleString('en-US')) },
        ],
        series: [
          {},
          {
            label: `Received (${props.symbol})`,
            stroke: RECEIVED,
            fill: RECEIVED,
            points: { show: false },
            ...bars(-1),
          },
          {
            label: `Paid out (${props.symbol})`,
            stroke: PAID_OUT,
            fill: PAID_OUT,
            points: { show: false },
            ...bars(1),
          },
        ],
      },
      series(props.since, props.days, props.daily),
      element,
    );
    const resize = () =>
      chart.setSize({ width: Math.max(element.clientWidth, 240), height: HEIGHT });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.destroy();
    };
  }, [library, props.since, props.days, props.symbol, props.daily]);
  return <div class="chart" ref={holder} aria-hidden="true" data-field="daily-chart" />;
}
