import type { FeeBearer, FeeConfigRecord, FeeFlow } from './fee-configs.ts';

/**
 * Which of an orchestrator's fee configs apply to one payment (api-facts §11.3), per bearer:
 * the client ID's active config of the payment's flow and that bearer, else the orchestrator's
 * active default of the same. A client ID's config thus replaces the default of its pair, and
 * adds one where the default lacks it; a disabled config is skipped, so a client ID whose own
 * config is disabled falls back to the default. The protocol fee is not here: it is the
 * operator's, the same for every client ID, and comes on top.
 */
export type ResolvedFeeConfigs = Readonly<Record<FeeBearer, FeeConfigRecord | null>>;

export function resolveFeeConfigs(
  configs: readonly FeeConfigRecord[],
  at: {
    readonly orchestratorId: string;
    readonly clientIdId: string | null;
    readonly flow: FeeFlow;
  },
): ResolvedFeeConfigs {
  const pick = (bearer: FeeBearer, clientIdId: string | null): FeeConfigRecord | null =>
    configs.find(
      (config) =>
        config.orchestratorId === at.orchestratorId &&
        config.clientIdId === clientIdId &&
        config.flow === at.flow &&
        config.feeBearer === bearer &&
        config.status === 'active',
    ) ?? null;
  const resolve = (bearer: FeeBearer): FeeConfigRecord | null =>
    (at.clientIdId === null ? null : pick(bearer, at.clientIdId)) ?? pick(bearer, null);
  return { payer: resolve('payer'), recipient: resolve('recipient') };
}
