import type { ChainClients } from '../../chains/clients.ts';
import type { ChainRegistry } from '../../chains/registry.ts';
import type { RouteQuoter } from '../../crosschain/quote-route.ts';
import type { Database } from '../../db/client.ts';
import type { ParentLinks } from '../../secure-payments/parent-links.ts';
import { multicallCalldata } from './calldata.ts';
import { multicallBody } from './view.ts';

/** What the link routes answer for a multicall parent: its view and its Variant C calldata. */
export function createMulticallParents(deps: {
  readonly db: Database;
  readonly chains: ChainRegistry;
  readonly clients: ChainClients;
  /** Routes a cross-chain parent's children (`evm_cross_chain`). */
  readonly routes: RouteQuoter;
}): ParentLinks {
  return {
    display: (link, now) => multicallBody(deps.chains, link, now),
    calldata: (link, payer, now, safe, crossChain) =>
      multicallCalldata(deps, link, payer, now, safe, crossChain),
  };
}
