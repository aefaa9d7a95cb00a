/**
 * A payment's fee plan, version 1 (api-facts §13.3), as links store it and answers carry it.
 * Built by `src/fees/plan.ts`; here, below every layer, so that the link table can type it.
 */

export type PlanFlow = 'get_paid' | 'pay';
export type PlanFeeBearer = 'payer' | 'payee';
type FeeBearerSource = 'fee_config' | 'payment_default_override' | 'flow_default';

export interface PlanFee {
  readonly type: 'orchestrator_fee' | 'protocol_fee';
  readonly label: string;
  readonly feeBearer: PlanFeeBearer;
  readonly feeBearerSource: FeeBearerSource;
  readonly percentageBps: number;
  readonly capUsd: string | null;
  readonly fixedAmountUsd: string | null;
  readonly calculatedAmountUsd: string;
  /** How the leg's recipient is found: the orchestrator's config, or the operator's settings. */
  readonly destinationResolver: 'orchestrator_fee_config' | 'protocol_fee_config';
  readonly destinationRef: { readonly evmAddress?: string; readonly tronAddress?: string };
  /** Which level the fee comes from: a client ID's config, the orchestrator's default, ours. */
  readonly configSource: 'client_id_config' | 'orchestrator_default' | 'protocol';
}

export interface FeePlan {
  readonly version: 1;
  readonly flow: PlanFlow;
  readonly defaultFeeBearer: PlanFeeBearer;
  readonly grossAmountUsd: string;
  readonly netRecipientAmountUsd: string;
  readonly payerTotalAmountUsd: string;
  readonly totalFeesUsd: string;
  readonly payeeBorneFeesUsd: string;
  readonly payerBorneFeesUsd: string;
  readonly fees: PlanFee[];
}
