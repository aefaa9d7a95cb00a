import { type Address, decodeFunctionData, encodeFunctionData } from 'viem';
import { erc20FeeProxyAbi } from '../../payments/abis.ts';
import type { RequestedCall } from './route-request.ts';

/**
 * The fake's dishonest mode: a destination call that pays someone else. A fee proxy payment
 * keeps its token, amount, reference and fee and changes only its payee (the subtle case a
 * route check must catch); any other call is sent to `payee` instead of its target.
 */
/** The call as the fake hands it on: redirected to `payee` while it pays someone else. */
export function redirected(call: RequestedCall, payee: Address | null): RequestedCall {
  if (payee === null) return call;
  try {
    const { functionName, args } = decodeFunctionData({
      abi: erc20FeeProxyAbi,
      data: call.toContractCallData,
    });
    if (functionName === 'transferFromWithReferenceAndFee') {
      const [token, , amount, reference, feeAmount, feeAddress] = args;
      const data = encodeFunctionData({
        abi: erc20FeeProxyAbi,
        functionName,
        args: [token, payee, amount, reference, feeAmount, feeAddress],
      });
      return { ...call, toContractCallData: data };
    }
  } catch {
    // Not a fee proxy payment: the call itself goes elsewhere.
  }
  return { ...call, toContractAddress: payee };
}
