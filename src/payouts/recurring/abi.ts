import { parseAbi } from 'viem';

/**
 * ERC20RecurringPaymentProxy (contracts.md §4): the executor's function, the relayer role and
 * the custom errors a trigger can revert with.
 */
export const recurringPaymentProxyAbi = parseAbi([
  'struct SchedulePermit { address subscriber; address token; address recipient; address feeAddress; uint128 amount; uint128 feeAmount; uint128 relayerFee; uint32 periodSeconds; uint32 firstPayment; uint8 totalPayments; uint256 nonce; uint256 deadline; bool strictOrder; }',
  'function triggerRecurringPayment(SchedulePermit p, bytes signature, uint8 index, bytes paymentReference)',
  // Per schedule (the permit's EIP-712 digest): bit i is set once index i is paid.
  'function triggeredPaymentsBitmap(bytes32 digest) view returns (uint256)',
  'function lastPaymentIndex(bytes32 digest) view returns (uint8)',
  'function RELAYER_ROLE() view returns (bytes32)',
  'function hasRole(bytes32 role, address account) view returns (bool)',
  'function grantRole(bytes32 role, address account)',
  'function setRelayer(address oldRelayer, address newRelayer)',
  'function setFeeProxy(address newFeeProxy)',
  'function pause()',
  'function unpause()',
  'function paused() view returns (bool)',
  'error ERC20RecurringPaymentProxy__BadSignature()',
  'error ERC20RecurringPaymentProxy__SignatureExpired()',
  'error ERC20RecurringPaymentProxy__IndexTooLarge()',
  'error ERC20RecurringPaymentProxy__PaymentOutOfOrder()',
  'error ERC20RecurringPaymentProxy__IndexOutOfBounds()',
  'error ERC20RecurringPaymentProxy__NotDueYet()',
  'error ERC20RecurringPaymentProxy__AlreadyPaid()',
  'error ERC20RecurringPaymentProxy__ZeroAddress()',
]);

/** keccak256("RELAYER_ROLE"). */
export const RELAYER_ROLE = '0xe2b7fb3b832174769106daebcfd6d1970523240dda11281102db9363b83b0dc4';
