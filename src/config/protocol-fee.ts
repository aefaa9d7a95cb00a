import { parseAmount } from '../payments/amounts.ts';
import { ConfigError, type Env, nonEmpty, parseInteger } from './readers.ts';

/**
 * The operator's own fee on every payment (`PROTOCOL_FEE_*`), the last level of a fee plan
 * (client ID's config → orchestrator's default → this). None unless set. USD amounts are held
 * with 8 decimals, the price feeds' unit, as fee configs' caps are.
 */

const PROTOCOL_FEE_USD_DECIMALS = 8;

export interface ProtocolFeeConfig {
  /** Basis points of a payment's amount, 0 to 10,000 (0: only the Tron sponsorship). */
  readonly bps: number;
  /** The most the percentage fee may be, in USD (8 decimals); null: no cap. */
  readonly usdCap: bigint | null;
  /** Who receives it on EVM networks and on Tron; a network without one charges no protocol fee. */
  readonly evmRecipient: string | null;
  readonly tronRecipient: string | null;
  /**
   * The fixed USD fee (8 decimals) on every Tron payment for the sponsored energy and bandwidth,
   * on top of the percentage (the reference charges 3.99); null: none.
   */
  readonly tronSponsorshipUsd: bigint | null;
}

const MAX_BPS = 10_000;

function usd(env: Env, name: string): bigint | null {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return null;
  const parsed = parseAmount(raw, PROTOCOL_FEE_USD_DECIMALS);
  if (!parsed.ok) throw new ConfigError(name, `${parsed.message}, in USD (got "${raw}")`);
  return parsed.value;
}

/**
 * Addresses are checked for their shape only, as `parseAddressMap` does: a configuration mistake
 * is answered before any package loads (the CLI's promise), and checksums need keccak, which
 * lives in a package. The fee plan reads them through the one address parser.
 */
const SHAPES = {
  evm: { pattern: /^0x[0-9a-fA-F]{40}$/, says: 'an EVM address (0x followed by 40 hex digits)' },
  tron: {
    pattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
    says: 'a Tron address (T followed by 33 base58 characters)',
  },
} as const;

function recipient(env: Env, name: string, kind: 'evm' | 'tron'): string | null {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return null;
  const shape = SHAPES[kind];
  if (!shape.pattern.test(raw)) throw new ConfigError(name, `must be ${shape.says} (got "${raw}")`);
  if (/^0x0{40}$/.test(raw))
    throw new ConfigError(name, `must not be the zero address (got "${raw}")`);
  return raw;
}

/** Null when no fee is charged; every variable set is checked, used or not. */
export function parseProtocolFee(env: Env): ProtocolFeeConfig | null {
  const bps = parseInteger(env, 'PROTOCOL_FEE_BPS', 0, MAX_BPS) ?? 0;
  const usdCap = usd(env, 'PROTOCOL_FEE_USD_CAP');
  const evmRecipient = recipient(env, 'PROTOCOL_FEE_EVM_RECIPIENT', 'evm');
  const tronRecipient = recipient(env, 'PROTOCOL_FEE_TRON_RECIPIENT', 'tron');
  const tronSponsorshipUsd = usd(env, 'PROTOCOL_FEE_TRON_SPONSORSHIP_USD');
  if (bps > 0 && evmRecipient === null && tronRecipient === null) {
    throw new ConfigError(
      'PROTOCOL_FEE_BPS',
      'needs a recipient: set PROTOCOL_FEE_EVM_RECIPIENT and/or PROTOCOL_FEE_TRON_RECIPIENT',
    );
  }
  if (usdCap !== null && bps === 0) {
    throw new ConfigError('PROTOCOL_FEE_USD_CAP', 'caps a fee: set PROTOCOL_FEE_BPS above 0');
  }
  if (tronSponsorshipUsd !== null && tronRecipient === null) {
    throw new ConfigError(
      'PROTOCOL_FEE_TRON_SPONSORSHIP_USD',
      'needs a recipient: set PROTOCOL_FEE_TRON_RECIPIENT',
    );
  }
  if (bps === 0 && tronSponsorshipUsd === null) return null;
  return { bps, usdCap, evmRecipient, tronRecipient, tronSponsorshipUsd };
}
