import type { Listed } from './listed.ts';

/** What a list says while it loads, when it could not be read, and when it is empty. */
export function ListStatus<T>(props: {
  readonly listed: Listed<T>;
  readonly loading: string;
  readonly empty: string;
}) {
  const { listed } = props;
  if (listed.kind === 'loading') return <p class="notice">{props.loading}</p>;
  if (listed.kind === 'failed') {
    return (
      <p class="problem" role="alert">
        {listed.message}
      </p>
    );
  }
  return listed.items.length === 0 ? <p class="notice">{props.empty}</p> : null;
}
