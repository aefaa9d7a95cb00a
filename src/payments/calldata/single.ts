import { isNative } from '../../chains/currencies.ts';
import { type Payer, smartAccountOf } from '../payer.ts';
import type { PaymentLeg } from '../transactions.ts';
import { buildConversionCalldata, isConversionLeg } from './conversion.ts';
import { buildErc20Calldata } from './erc20.ts';
import { buildNativeCalldata } from './native.ts';
import type { CalldataDeps, FeeLegCall, SingleCalldata } from './shared.ts';
import { buildSmartAccountCalldata } from './smart-account.ts';
import { buildTronCalldata } from './tron.ts';

/**
 * Calldata for one request (Variant A), by what pays it: a fiat amount at the on-chain rate,
 * a TRC-20 token on Tron, the network's native currency, or an ERC20 token. Fee legs follow
 * the payment of a token (only USD stablecoins carry fee plans). A smart account paying with
 * its owner EOA's tokens has its own builder, around the token's.
 */
export async function buildSingleCalldata(
  deps: CalldataDeps,
  leg: PaymentLeg,
  payer: Payer,
  fees: readonly FeeLegCall[] = [],
): Promise<SingleCalldata> {
  const token = !isConversionLeg(leg) && !isNative(leg.currency);
  if (fees.length > 0 && !token) throw new Error('fee legs follow a token payment only');
  if (smartAccountOf(payer)) return buildSmartAccountCalldata(deps, leg, payer, fees);
  if (isConversionLeg(leg)) return buildConversionCalldata(deps, leg, payer);
  if (leg.network.kind === 'tron') return buildTronCalldata(deps, leg, payer, fees);
  return isNative(leg.currency)
    ? buildNativeCalldata(deps, leg, payer)
    : buildErc20Calldata(deps, leg, payer, fees);
}
