import { type Address, getAddress } from 'viem';
import { AppError } from '../base/errors.ts';
import { erc20Abi } from '../payments/abis.ts';
import { commerceConsentAbi } from '../payments/commerce/abi.ts';
import { authParamsOf } from './calldata/authorize.ts';
import type { CommerceDeps } from './deps.ts';
import { formatted } from './format.ts';
import type { CommercePaymentRow } from './payment.ts';

/**
 * What an operator's `authorizePayment` needs from the buyer, read from the chain before
 * anything is sent: the buyer's pre-approval of exactly the payment's terms on the wrapper
 * (the wrapper takes an authorization only from its payer, or on terms the payer pre-approved),
 * and its approval of the wrapper for the amount. Either missing is 409
 * `commerce_not_preapproved`.
 */
export async function checkPreApproved(
  deps: Pick<CommerceDeps, 'clients' | 'chains'>,
  payment: CommercePaymentRow & { readonly payer: string },
): Promise<void> {
  const wrapper = getAddress(payment.wrapper);
  const params = authParamsOf(payment);
  const { preApproved, allowance } = await deps.clients.read(payment.network, async (client) => {
    const termsHash = await client.readContract({
      address: wrapper,
      abi: commerceConsentAbi,
      functionName: 'authorizationTermsHash',
      args: [params],
    });
    const [approved, allowed] = await Promise.all([
      client.readContract({
        address: wrapper,
        abi: commerceConsentAbi,
        functionName: 'preApprovedTerms',
        args: [termsHash],
      }),
      client.readContract({
        address: getAddress(payment.tokenAddress),
        abi: erc20Abi,
        functionName: 'allowance',
        args: [params.payer as Address, wrapper],
      }),
    ]);
    return { preApproved: approved, allowance: allowed };
  });
  const buyer = getAddress(payment.payer);
  if (!preApproved) {
    throw new AppError(
      'commerce_not_preapproved',
      `The buyer ${buyer} has not pre-approved this payment's terms on the wrapper: the buyer sends the transactions of /authorize/calldata (the approval of the wrapper, then preApproveAuthorization) before the operator authorizes, or authorizes from payUrl itself`,
    );
  }
  if (allowance < payment.amount) {
    const amount = (value: bigint) => formatted(deps.chains, payment, value);
    throw new AppError(
      'commerce_not_preapproved',
      `The buyer ${buyer} approved the wrapper for ${amount(allowance)}, short of the amount ${amount(payment.amount)}: the buyer sends the approval of /authorize/calldata first`,
    );
  }
}
