import type { DashboardConfig } from './config.ts';

/** A transaction, shortened, linking to its network's explorer where it has one. */
export function ExplorerLink(props: {
  readonly config: DashboardConfig;
  readonly network: string;
  readonly txHash: string | null;
}) {
  const { txHash } = props;
  if (txHash === null) return <span>—</span>;
  const short = <code>{`${txHash.slice(0, 10)}…`}</code>;
  const template = props.config.explorers[props.network];
  if (!template) return short;
  return (
    <a href={template.replace('{txHash}', txHash)} target="_blank" rel="noreferrer">
      {short}
    </a>
  );
}
