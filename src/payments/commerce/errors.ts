import { parseAbi } from 'viem';

/**
 * The custom errors the commerce contracts revert with (contracts.md §5): the wrapper, the
 * escrow, its token collectors and payreq's consent terms, each signature once (the escrow's
 * and the collector's `AfterPreApprovalExpiry` are one selector). Decoded where a call is
 * refused before it is sent (its gas estimate), so a refusal names the rule the chain applied.
 */
export const commerceErrorsAbi = parseAbi([
  // ERC20CommerceEscrowWrapper
  'error ZeroAddress()',
  'error ZeroPaymentReference()',
  'error NotOperator(address sender, address operator)',
  'error PaymentNotFound(bytes8 paymentReference)',
  'error PaymentAlreadyExists(bytes8 paymentReference)',
  'error AmountTooLarge(uint256 amount, uint256 limit)',
  'error ExpiryTooLarge(uint256 expiry, uint256 limit)',
  'error InvalidFeeBps(uint16 feeBps)',
  'error ZeroFeeReceiver()',
  // CommerceTerms (the payer's consent), PreApprovalPaymentCollector
  'error NotPayer(address sender, address payer)',
  'error TermsNotPreApproved(address sender, address payer, bytes32 termsHash)',
  'error PaymentAlreadyPreApproved(bytes32 paymentInfoHash)',
  'error PaymentNotPreApproved(bytes32 paymentInfoHash)',
  'error OnlyEscrow(address sender)',
  // AuthCaptureEscrow
  'error InvalidSender(address sender, address expected)',
  'error ZeroAmount()',
  'error AmountOverflow(uint256 amount, uint256 limit)',
  'error ExceedsMaxAmount(uint256 amount, uint256 maxAmount)',
  'error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry)',
  'error InvalidExpiries(uint48 preApproval, uint48 authorization, uint48 refund)',
  'error InvalidFeeBpsRange(uint16 minFeeBps, uint16 maxFeeBps)',
  'error FeeBpsOutOfRange(uint16 feeBps, uint16 minFeeBps, uint16 maxFeeBps)',
  'error InvalidFeeReceiver(address attempted, address expected)',
  'error InvalidCollectorForOperation()',
  'error TokenCollectionFailed()',
  'error PaymentAlreadyCollected(bytes32 paymentInfoHash)',
  'error AfterAuthorizationExpiry(uint48 timestamp, uint48 expiry)',
  'error BeforeAuthorizationExpiry(uint48 timestamp, uint48 expiry)',
  'error InsufficientAuthorization(bytes32 paymentInfoHash, uint256 authorizedAmount, uint256 requestedAmount)',
  'error ZeroAuthorization(bytes32 paymentInfoHash)',
  'error AfterRefundExpiry(uint48 timestamp, uint48 expiry)',
  'error RefundExceedsCapture(uint256 refund, uint256 captured)',
  // ReentrancyLock, SafeToken
  'error ReentrantCall()',
  'error TokenHasNoCode(address token)',
  'error TokenCallFailed(address token)',
]);
