import { isNative } from '../../chains/currencies.ts';
import type { Payer } from '../payer.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildConversionCalldata, isConversionLeg } from './conversion.ts';
import { buildErc20Calldata } from './erc20.ts';
import { buildNativeCalldata } from './native.ts';
import type { CalldataDeps, SingleCalldata } from './shared.ts';
import { buildTronCalldata } from './tron.ts';

/**
 * Calldata for one request (Variant A), by what pays it: a fiat amount at the on-chain rate,
 * a TRC-20 token on Tron, the network's native currency, or an ERC20 token.
 */
export async function buildSingleCalldata(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
): Promise<SingleCalldata> {
  if (isConversionLeg(leg)) return buildConversionCalldata(deps, leg, payer);
  if (leg.network.kind === 'tron') return buildTronCalldata(deps, leg, payer);
  return isNative(leg.currency)
    ? buildNativeCalldata(deps, leg, payer)
    : buildErc20Calldata(deps, leg, payer);
}
