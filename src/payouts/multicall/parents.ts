import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { Database } from '../../db/client.ts';
import type { ParentLinks } from '../../secure-payments/parent-links.ts';
import { multicallCalldata } from './calldata.ts';
import { multicallBody } from './view.ts';

/** What the link routes answer for a multicall parent: its view and its Variant C calldata. */
export function createMulticallParents(deps: {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
}): ParentLinks {
  return {
    display: (link, now) => multicallBody(deps.chains, link, now),
    calldata: (link, payer, now, safe) => multicallCalldata(deps, link, payer, now, safe),
  };
}
