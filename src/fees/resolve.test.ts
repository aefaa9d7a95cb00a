import { describe, expect, it } from 'vitest';
import type { FeeConfigRecord } from './fee-configs.ts';
import { resolveFeeConfigs } from './resolve.ts';

const ORCHESTRATOR = 'orc-1';
const CLIENT = 'client-1';
const AT = new Date('2026-11-29T00:00:00Z');

function config(
  id: string,
  fields: Partial<FeeConfigRecord> & Pick<FeeConfigRecord, 'flow' | 'feeBearer'>,
): FeeConfigRecord {
  return {
    id,
    orchestratorId: ORCHESTRATOR,
    clientIdId: null,
    clientId: null,
    bps: 50,
    usdCap: null,
    evmRecipientAddress: '0x2546BcD3c84621e976D8185a91A922aE77ECEc30',
    tronRecipientAddress: null,
    status: 'active',
    createdAt: AT,
    updatedAt: AT,
    ...fields,
  };
}

const ids = (resolved: ReturnType<typeof resolveFeeConfigs>) => ({
  payer: resolved.payer?.id ?? null,
  recipient: resolved.recipient?.id ?? null,
});

describe('resolveFeeConfigs', () => {
  const defaults = [
    config('default-payer', { flow: 'incoming', feeBearer: 'payer' }),
    config('default-recipient', { flow: 'incoming', feeBearer: 'recipient' }),
    config('default-out-payer', { flow: 'outgoing', feeBearer: 'payer' }),
  ];

  it('gives the orchestrator’s defaults of the flow without a client ID, or to one with none', () => {
    expect(
      ids(
        resolveFeeConfigs(defaults, {
          orchestratorId: ORCHESTRATOR,
          clientIdId: null,
          flow: 'incoming',
        }),
      ),
    ).toEqual({ payer: 'default-payer', recipient: 'default-recipient' });
    expect(
      ids(
        resolveFeeConfigs(defaults, {
          orchestratorId: ORCHESTRATOR,
          clientIdId: CLIENT,
          flow: 'outgoing',
        }),
      ),
    ).toEqual({ payer: 'default-out-payer', recipient: null });
  });

  it('lets a client ID’s config replace the default of its pair, and add a pair the defaults lack', () => {
    const configs = [
      ...defaults,
      config('client-payer', { flow: 'incoming', feeBearer: 'payer', clientIdId: CLIENT }),
      config('client-out-recipient', {
        flow: 'outgoing',
        feeBearer: 'recipient',
        clientIdId: CLIENT,
      }),
    ];
    expect(
      ids(
        resolveFeeConfigs(configs, {
          orchestratorId: ORCHESTRATOR,
          clientIdId: CLIENT,
          flow: 'incoming',
        }),
      ),
    ).toEqual({ payer: 'client-payer', recipient: 'default-recipient' });
    expect(
      ids(
        resolveFeeConfigs(configs, {
          orchestratorId: ORCHESTRATOR,
          clientIdId: CLIENT,
          flow: 'outgoing',
        }),
      ),
    ).toEqual({ payer: 'default-out-payer', recipient: 'client-out-recipient' });
    // Another client ID of the same orchestrator gets only the defaults.
    expect(
      ids(
        resolveFeeConfigs(configs, {
          orchestratorId: ORCHESTRATOR,
          clientIdId: 'client-2',
          flow: 'incoming',
        }),
      ),
    ).toEqual({ payer: 'default-payer', recipient: 'default-recipient' });
  });

  it('skips disabled configs at either level', () => {
    const configs = [
      config('default-payer', { flow: 'incoming', feeBearer: 'payer', status: 'disabled' }),
      config('default-recipient', { flow: 'incoming', feeBearer: 'recipient' }),
      config('client-recipient', {
        flow: 'incoming',
        feeBearer: 'recipient',
        clientIdId: CLIENT,
        status: 'disabled',
      }),
    ];
    expect(
      ids(
        resolveFeeConfigs(configs, {
          orchestratorId: ORCHESTRATOR,
          clientIdId: CLIENT,
          flow: 'incoming',
        }),
      ),
    ).toEqual({ payer: null, recipient: 'default-recipient' });
  });

  it('never takes another orchestrator’s configs', () => {
    const configs = [
      config('rival', { flow: 'incoming', feeBearer: 'payer', orchestratorId: 'orc-2' }),
    ];
    expect(
      ids(
        resolveFeeConfigs(configs, {
          orchestratorId: ORCHESTRATOR,
          clientIdId: null,
          flow: 'incoming',
        }),
      ),
    ).toEqual({ payer: null, recipient: null });
  });
});
