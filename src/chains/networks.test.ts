import { describe, expect, it } from 'vitest';
import { DEPLOYED_CONTRACTS } from './contracts.ts';
import { NETWORKS, PAYMENT_NETWORK_IDS } from './networks.ts';

describe('network ids', () => {
  it('names every real network once, in the order of their facts', () => {
    expect(NETWORKS.map((network) => network.id)).toEqual(PAYMENT_NETWORK_IDS);
    expect(Object.keys(DEPLOYED_CONTRACTS).sort()).toEqual([...PAYMENT_NETWORK_IDS].sort());
  });
});
