import type { FeePlan, PlanFee, PlanFeeBearer, PlanFlow } from '../base/fee-plan.ts';
import type { ProtocolFeeConfig } from '../config/protocol-fee.ts';
import { formatAmount } from '../payments/amounts.ts';
import type { FeeConfigRecord } from './fee-configs.ts';
import { USD_CAP_DECIMALS } from './fee-values.ts';
import type { ResolvedFeeConfigs } from './resolve.ts';

/**
 * A payment's fee plan, version 1 (api-facts §13.3): what each fee is, who bears it and how
 * much, in USD. Pure: the caller resolves the configs (`resolveFeeConfigs`) and gives the gross
 * amount in USD with 8 decimals; every amount is computed in integers of that unit.
 *
 * - A percentage is of the gross amount, rounded down to the unit, then capped; each fee is
 *   then rounded down to what the currency can move (`quantumUsd`).
 * - An orchestrator config's own bearer wins (`fee_config`); the protocol fee takes the
 *   payment's default bearer: the one sent (`payment_default_override`), else the flow's
 *   (`flow_default`: get_paid → payee, pay → payer).
 * - Payer-borne fees are added on top (`payerTotalAmountUsd`); payee-borne fees come out of
 *   the gross (`netRecipientAmountUsd`), never below zero: a payee-borne fee is cut to what is
 *   left of the gross.
 * - The protocol fee applies on a network kind where the operator has a recipient; on Tron it
 *   adds the fixed sponsorship fee (`fixedAmountUsd`).
 */

export interface FeePlanInput {
  /** The gross amount in USD, 8 decimals (`USD_CAP_DECIMALS`). */
  readonly grossUsd: bigint;
  readonly flow: PlanFlow;
  /** The payment-level override; undefined: the flow's default. */
  readonly defaultFeeBearer?: PlanFeeBearer | undefined;
  /** The orchestrator's configs that apply; null without paired auth. */
  readonly configs: ResolvedFeeConfigs | null;
  readonly protocolFee: ProtocolFeeConfig | null;
  readonly networkKind: 'evm' | 'tron';
  /**
   * The smallest USD amount the currency can move (1 for 8 decimals or more, 100 for USDC's
   * 6): every fee is rounded down to it, so each one is a whole number of base units and the
   * legs paid on chain are exactly the plan's amounts. Default 1.
   */
  readonly quantumUsd?: bigint | undefined;
}

const BPS = 10_000n;
const usd = (value: bigint): string => formatAmount(value, USD_CAP_DECIMALS);

interface Draft {
  readonly fee: Omit<PlanFee, 'calculatedAmountUsd'>;
  readonly amount: bigint;
}

function percentage(grossUsd: bigint, bps: number, cap: bigint | null): bigint {
  const raw = (grossUsd * BigInt(bps)) / BPS;
  return cap !== null && raw > cap ? cap : raw;
}

function ref(evm: string | null, tron: string | null): PlanFee['destinationRef'] {
  return {
    ...(evm === null ? {} : { evmAddress: evm }),
    ...(tron === null ? {} : { tronAddress: tron }),
  };
}

function orchestratorDraft(config: FeeConfigRecord, grossUsd: bigint): Draft {
  return {
    amount: percentage(grossUsd, config.bps, config.usdCap),
    fee: {
      type: 'orchestrator_fee',
      label: 'Platform fee',
      feeBearer: config.feeBearer === 'payer' ? 'payer' : 'payee',
      feeBearerSource: 'fee_config',
      percentageBps: config.bps,
      capUsd: config.usdCap === null ? null : usd(config.usdCap),
      fixedAmountUsd: null,
      destinationResolver: 'orchestrator_fee_config',
      destinationRef: ref(config.evmRecipientAddress, config.tronRecipientAddress),
      configSource: config.clientIdId === null ? 'orchestrator_default' : 'client_id_config',
    },
  };
}

function protocolDraft(input: FeePlanInput, bearer: PlanFeeBearer): Draft | null {
  const protocol = input.protocolFee;
  if (protocol === null) return null;
  const recipient = input.networkKind === 'tron' ? protocol.tronRecipient : protocol.evmRecipient;
  if (recipient === null) return null;
  const fixed = input.networkKind === 'tron' ? protocol.tronSponsorshipUsd : null;
  if (protocol.bps === 0 && fixed === null) return null;
  return {
    amount: percentage(input.grossUsd, protocol.bps, protocol.usdCap) + (fixed ?? 0n),
    fee: {
      type: 'protocol_fee',
      label: 'Protocol fee',
      feeBearer: bearer,
      feeBearerSource:
        input.defaultFeeBearer === undefined ? 'flow_default' : 'payment_default_override',
      percentageBps: protocol.bps,
      capUsd: protocol.usdCap === null ? null : usd(protocol.usdCap),
      fixedAmountUsd: fixed === null ? null : usd(fixed),
      destinationResolver: 'protocol_fee_config',
      destinationRef: input.networkKind === 'tron' ? ref(null, recipient) : ref(recipient, null),
      configSource: 'protocol',
    },
  };
}

/** The plan: orchestrator fees (payer-borne, then payee-borne), then the protocol fee. */
export function buildFeePlan(input: FeePlanInput): FeePlan {
  const defaultFeeBearer =
    input.defaultFeeBearer ?? (input.flow === 'get_paid' ? 'payee' : 'payer');
  const drafts: Draft[] = [];
  for (const config of [input.configs?.payer ?? null, input.configs?.recipient ?? null]) {
    // A config names a recipient per network kind: one without one here charges nothing here.
    const recipient =
      input.networkKind === 'tron' ? config?.tronRecipientAddress : config?.evmRecipientAddress;
    if (config && recipient) drafts.push(orchestratorDraft(config, input.grossUsd));
  }
  const protocol = protocolDraft(input, defaultFeeBearer);
  if (protocol !== null) drafts.push(protocol);

  let payerBorne = 0n;
  let payeeBorne = 0n;
  const quantum = input.quantumUsd ?? 1n;
  const fees = drafts.map(({ fee, amount }) => {
    let charged = amount - (amount % quantum);
    if (fee.feeBearer === 'payee') {
      const left = input.grossUsd - payeeBorne;
      if (charged > left) charged = left;
      payeeBorne += charged;
    } else {
      payerBorne += charged;
    }
    return { ...fee, calculatedAmountUsd: usd(charged) };
  });
  return {
    version: 1,
    flow: input.flow,
    defaultFeeBearer,
    grossAmountUsd: usd(input.grossUsd),
    netRecipientAmountUsd: usd(input.grossUsd - payeeBorne),
    payerTotalAmountUsd: usd(input.grossUsd + payerBorne),
    totalFeesUsd: usd(payerBorne + payeeBorne),
    payeeBorneFeesUsd: usd(payeeBorne),
    payerBorneFeesUsd: usd(payerBorne),
    fees,
  };
}
