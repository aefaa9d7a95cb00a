import { parseAbi } from 'viem';

/**
 * Commerce payments (contracts.md §5): Request's ERC20CommerceEscrowWrapper in front of
 * Coinbase's AuthCaptureEscrow. Each payment is keyed by its 8-byte Request payment reference;
 * the wrapper is the escrow's payer, operator and receiver, and settles every leg through
 * ERC20FeeProxy with that reference. Our build of both contracts (src/sandbox/contracts/
 * commerce/) is proven to have exactly these functions, events and structs, and payreq's
 * addition: an authorization or a charge needs its payer's consent, the payer sending it or
 * having pre-approved its exact terms (`preApproveAuthorization`, docs/guides/commerce.md).
 */

/** `AuthParams` and `ChargeParams` of the wrapper, as tuple components. */
const AUTH_PARAMS =
  'bytes8 paymentReference, address payer, address merchant, address operator, address token, uint256 amount, uint256 maxAmount, uint256 preApprovalExpiry, uint256 authorizationExpiry, uint256 refundExpiry, address tokenCollector, bytes collectorData';
const CHARGE_PARAMS =
  'bytes8 paymentReference, address payer, address merchant, address operator, address token, uint256 amount, uint256 maxAmount, uint256 preApprovalExpiry, uint256 authorizationExpiry, uint256 refundExpiry, uint16 feeBps, address feeReceiver, address tokenCollector, bytes collectorData';
const PAYMENT_INFO =
  'address operator, address payer, address receiver, address token, uint120 maxAmount, uint48 preApprovalExpiry, uint48 authorizationExpiry, uint48 refundExpiry, uint16 minFeeBps, uint16 maxFeeBps, address feeReceiver, uint256 salt';

export const commerceWrapperAbi = parseAbi([
  `struct AuthParams { ${AUTH_PARAMS.replaceAll(', ', '; ')}; }`,
  `struct ChargeParams { ${CHARGE_PARAMS.replaceAll(', ', '; ')}; }`,
  'function authorizePayment(AuthParams params)',
  'function authorizeCommercePayment(AuthParams params)',
  'function capturePayment(bytes8 paymentReference, uint256 captureAmount, uint16 feeBps, address feeReceiver)',
  'function voidPayment(bytes8 paymentReference)',
  'function refundPayment(bytes8 paymentReference, uint256 refundAmount, address tokenCollector, bytes collectorData)',
  'function chargePayment(ChargeParams params)',
  'function reclaimPayment(bytes8 paymentReference)',
  'event PaymentAuthorized(bytes8 indexed paymentReference, address payer, address merchant, address token, uint256 amount, bytes32 commercePaymentHash)',
  'event CommercePaymentAuthorized(bytes8 indexed paymentReference, address payer, address merchant, uint256 amount)',
  'event PaymentCaptured(bytes8 indexed paymentReference, bytes32 commercePaymentHash, uint256 capturedAmount, address merchant)',
  'event PaymentVoided(bytes8 indexed paymentReference, bytes32 commercePaymentHash, uint256 voidedAmount, address payer)',
  'event PaymentRefunded(bytes8 indexed paymentReference, bytes32 commercePaymentHash, uint256 refundedAmount, address payer)',
  'event PaymentCharged(bytes8 indexed paymentReference, address payer, address merchant, address token, uint256 amount, bytes32 commercePaymentHash)',
  'event PaymentReclaimed(bytes8 indexed paymentReference, bytes32 commercePaymentHash, uint256 reclaimedAmount, address payer)',
]);

/**
 * payreq's addition to the wrapper: the payer's consent to the terms of an authorization or a
 * charge, pre-approved by the payer and used up by the call it allows. Apart from the wrapper's
 * ABI, whose events detection reads.
 */
export const commerceConsentAbi = parseAbi([
  // Spelt out, so that viem types the reads' arguments.
  'struct AuthParams { bytes8 paymentReference; address payer; address merchant; address operator; address token; uint256 amount; uint256 maxAmount; uint256 preApprovalExpiry; uint256 authorizationExpiry; uint256 refundExpiry; address tokenCollector; bytes collectorData; }',
  'struct ChargeParams { bytes8 paymentReference; address payer; address merchant; address operator; address token; uint256 amount; uint256 maxAmount; uint256 preApprovalExpiry; uint256 authorizationExpiry; uint256 refundExpiry; uint16 feeBps; address feeReceiver; address tokenCollector; bytes collectorData; }',
  'function preApproveAuthorization(AuthParams params)',
  'function preApproveCharge(ChargeParams params)',
  'function authorizationTermsHash(AuthParams params) pure returns (bytes32)',
  'function chargeTermsHash(ChargeParams params) pure returns (bytes32)',
  'function preApprovedTerms(bytes32 termsHash) view returns (bool)',
  'event PaymentTermsPreApproved(bytes8 indexed paymentReference, address indexed payer, bytes32 termsHash)',
]);

export const authCaptureEscrowAbi = parseAbi([
  `struct PaymentInfo { ${PAYMENT_INFO.replaceAll(', ', '; ')}; }`,
  'function authorize(PaymentInfo paymentInfo, uint256 amount, address tokenCollector, bytes collectorData)',
  'function capture(PaymentInfo paymentInfo, uint256 amount, uint16 feeBps, address feeReceiver)',
  'function void(PaymentInfo paymentInfo)',
  'function refund(PaymentInfo paymentInfo, uint256 amount, address tokenCollector, bytes collectorData)',
  'function charge(PaymentInfo paymentInfo, uint256 amount, address tokenCollector, bytes collectorData, uint16 feeBps, address feeReceiver)',
  'function reclaim(PaymentInfo paymentInfo)',
  'function getHash(PaymentInfo paymentInfo) pure returns (bytes32)',
  'function paymentState(bytes32 paymentInfoHash) view returns (bool hasCollectedPayment, uint120 capturableAmount, uint120 refundableAmount)',
  'event PaymentAuthorized(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector)',
  'event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint16 feeBps, address feeReceiver)',
  'event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount)',
  'event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector)',
  'event PaymentCharged(bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector, uint16 feeBps, address feeReceiver)',
  'event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount)',
]);

/** keccak256 of the `PaymentInfo` type string (contracts.md §5.2). */
export const PAYMENT_INFO_TYPEHASH =
  '0xae68ac7ce30c86ece8196b61a7c486d8f0061f575037fbd34e7fe4e2820c6591';

/** The largest amount (uint96) and expiry (uint48) the wrapper accepts. */
export const MAX_COMMERCE_AMOUNT = 2n ** 96n - 1n;
export const MAX_COMMERCE_EXPIRY = 2n ** 48n - 1n;
