// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

/*
 * Commerce payments, written for payreq from the interface and rules described in its contracts
 * reference (section 5): Coinbase's AuthCaptureEscrow (authorize, capture, void, refund, charge,
 * reclaim of one `PaymentInfo`), two token collectors, and Request's
 * ERC20CommerceEscrowWrapper, which keys each payment by its 8-byte Request reference and settles
 * every leg through ERC20FeeProxy. Same structs, selectors, events and hash as the documented
 * contracts; self-contained (no library imports, no transient storage) so the sandbox compiles
 * it offline and runs it on any EVM version.
 */

interface IERC20FeeProxy {
  function transferFromWithReferenceAndFee(
    address tokenAddress,
    address to,
    uint256 amount,
    bytes calldata paymentReference,
    uint256 feeAmount,
    address feeAddress
  ) external;
}

/// Token calls that must succeed and return nothing or `true` (USDT returns nothing).
library SafeToken {
  error TokenHasNoCode(address token);
  error TokenCallFailed(address token);

  function transfer(address token, address to, uint256 amount) internal {
    _call(token, abi.encodeWithSelector(0xa9059cbb, to, amount));
  }

  function transferFrom(address token, address from, address to, uint256 amount) internal {
    _call(token, abi.encodeWithSelector(0x23b872dd, from, to, amount));
  }

  /// Zero first: tokens such as USDT refuse to change one non-zero allowance into another.
  function approve(address token, address spender, uint256 amount) internal {
    _call(token, abi.encodeWithSelector(0x095ea7b3, spender, 0));
    if (amount > 0) _call(token, abi.encodeWithSelector(0x095ea7b3, spender, amount));
  }

  function balanceOf(address token, address holder) internal view returns (uint256) {
    (bool ok, bytes memory result) = token.staticcall(abi.encodeWithSelector(0x70a08231, holder));
    if (!ok || result.length < 32) revert TokenCallFailed(token);
    return abi.decode(result, (uint256));
  }

  function _call(address token, bytes memory data) private {
    if (token.code.length == 0) revert TokenHasNoCode(token);
    (bool ok, bytes memory result) = token.call(data);
    if (!ok) {
      // The token's own reason (an allowance or balance too low) reaches the caller as is.
      assembly {
        revert(add(result, 32), mload(result))
      }
    }
    if (result.length != 0 && !abi.decode(result, (bool))) revert TokenCallFailed(token);
  }
}

/// A storage-slot reentrancy lock (no transient storage: the sandbox's EVM may predate it).
abstract contract ReentrancyLock {
  error ReentrantCall();

  uint256 private _locked = 1;

  modifier nonReentrant() {
    if (_locked != 1) revert ReentrantCall();
    _locked = 2;
    _;
    _locked = 1;
  }
}

/// What the escrow asks a collector to do: move `amount` of the payment's token into the escrow.
interface ITokenCollector {
  enum CollectorType {
    Payment,
    Refund
  }

  /// Payment collectors fund authorize and charge; refund collectors fund refund.
  function collectorType() external view returns (CollectorType);

  function collectTokens(
    AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
    uint256 amount,
    bytes calldata collectorData
  ) external;
}

contract AuthCaptureEscrow is ReentrancyLock {
  using SafeToken for address;

  struct PaymentInfo {
    address operator;
    address payer;
    address receiver;
    address token;
    uint120 maxAmount;
    uint48 preApprovalExpiry;
    uint48 authorizationExpiry;
    uint48 refundExpiry;
    uint16 minFeeBps;
    uint16 maxFeeBps;
    address feeReceiver;
    uint256 salt;
  }

  struct PaymentState {
    bool hasCollectedPayment;
    uint120 capturableAmount;
    uint120 refundableAmount;
  }

  bytes32 public constant PAYMENT_INFO_TYPEHASH =
    keccak256(
      "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"
    );
  uint16 internal constant MAX_FEE_BPS = 10_000;

  /// Per payment hash: whether it was collected, what is left to capture, what may be refunded.
  mapping(bytes32 => PaymentState) public paymentState;

  event PaymentAuthorized(
    bytes32 indexed paymentInfoHash,
    PaymentInfo paymentInfo,
    uint256 amount,
    address tokenCollector
  );
  event PaymentCaptured(
    bytes32 indexed paymentInfoHash,
    uint256 amount,
    uint16 feeBps,
    address feeReceiver
  );
  event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);
  event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);
  event PaymentCharged(
    bytes32 indexed paymentInfoHash,
    PaymentInfo paymentInfo,
    uint256 amount,
    address tokenCollector,
    uint16 feeBps,
    address feeReceiver
  );
  event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);

  error InvalidSender(address sender, address expected);
  error ZeroAmount();
  error AmountOverflow(uint256 amount, uint256 limit);
  error ExceedsMaxAmount(uint256 amount, uint256 maxAmount);
  error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry);
  error InvalidExpiries(uint48 preApproval, uint48 authorization, uint48 refund);
  error InvalidFeeBpsRange(uint16 minFeeBps, uint16 maxFeeBps);
  error FeeBpsOutOfRange(uint16 feeBps, uint16 minFeeBps, uint16 maxFeeBps);
  error ZeroFeeReceiver();
  error InvalidFeeReceiver(address attempted, address expected);
  error InvalidCollectorForOperation();
  error TokenCollectionFailed();
  error PaymentAlreadyCollected(bytes32 paymentInfoHash);
  error AfterAuthorizationExpiry(uint48 timestamp, uint48 expiry);
  error BeforeAuthorizationExpiry(uint48 timestamp, uint48 expiry);
  error InsufficientAuthorization(bytes32 paymentInfoHash, uint256 authorizedAmount, uint256 requestedAmount);
  error ZeroAuthorization(bytes32 paymentInfoHash);
  error AfterRefundExpiry(uint48 timestamp, uint48 expiry);
  error RefundExceedsCapture(uint256 refund, uint256 captured);

  modifier onlySender(address sender) {
    if (msg.sender != sender) revert InvalidSender(msg.sender, sender);
    _;
  }

  modifier validAmount(uint256 amount) {
    if (amount == 0) revert ZeroAmount();
    if (amount > type(uint120).max) revert AmountOverflow(amount, type(uint120).max);
    _;
  }

  /// Holds `amount` of the payer's tokens, pulled by a payment collector, for later capture.
  function authorize(
    PaymentInfo calldata paymentInfo,
    uint256 amount,
    address tokenCollector,
    bytes calldata collectorData
  ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
    _validatePayment(paymentInfo, amount);
    bytes32 hash = getHash(paymentInfo);
    if (paymentState[hash].hasCollectedPayment) revert PaymentAlreadyCollected(hash);
    paymentState[hash] = PaymentState(true, uint120(amount), 0);
    emit PaymentAuthorized(hash, paymentInfo, amount, tokenCollector);
    _collectTokens(paymentInfo, amount, tokenCollector, collectorData, ITokenCollector.CollectorType.Payment);
  }

  /// Sends `amount` of what is held to the receiver, `feeBps` of it to the fee receiver.
  function capture(
    PaymentInfo calldata paymentInfo,
    uint256 amount,
    uint16 feeBps,
    address feeReceiver
  ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
    _validateFee(paymentInfo, feeBps, feeReceiver);
    uint48 now48 = uint48(block.timestamp);
    if (now48 >= paymentInfo.authorizationExpiry)
      revert AfterAuthorizationExpiry(now48, paymentInfo.authorizationExpiry);
    bytes32 hash = getHash(paymentInfo);
    PaymentState memory state = paymentState[hash];
    if (state.capturableAmount < amount)
      revert InsufficientAuthorization(hash, state.capturableAmount, amount);
    state.capturableAmount -= uint120(amount);
    state.refundableAmount += uint120(amount);
    paymentState[hash] = state;
    emit PaymentCaptured(hash, amount, feeBps, feeReceiver);
    _distribute(paymentInfo.token, paymentInfo.receiver, amount, feeBps, feeReceiver);
  }

  /// Authorizes and captures in one step: the payment is at once refundable.
  function charge(
    PaymentInfo calldata paymentInfo,
    uint256 amount,
    address tokenCollector,
    bytes calldata collectorData,
    uint16 feeBps,
    address feeReceiver
  ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
    _validatePayment(paymentInfo, amount);
    _validateFee(paymentInfo, feeBps, feeReceiver);
    bytes32 hash = getHash(paymentInfo);
    if (paymentState[hash].hasCollectedPayment) revert PaymentAlreadyCollected(hash);
    paymentState[hash] = PaymentState(true, 0, uint120(amount));
    emit PaymentCharged(hash, paymentInfo, amount, tokenCollector, feeBps, feeReceiver);
    _collectTokens(paymentInfo, amount, tokenCollector, collectorData, ITokenCollector.CollectorType.Payment);
    _distribute(paymentInfo.token, paymentInfo.receiver, amount, feeBps, feeReceiver);
  }

  /// Returns everything still held to the payer, at any time before it is captured.
  function void(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.operator) {
    bytes32 hash = getHash(paymentInfo);
    uint256 amount = _release(hash);
    emit PaymentVoided(hash, amount);
    paymentInfo.token.transfer(paymentInfo.payer, amount);
  }

  /// The payer takes back what is still held once the authorization has expired.
  function reclaim(PaymentInfo calldata paymentInfo) external nonReentrant onlySender(paymentInfo.payer) {
    uint48 now48 = uint48(block.timestamp);
    if (now48 < paymentInfo.authorizationExpiry)
      revert BeforeAuthorizationExpiry(now48, paymentInfo.authorizationExpiry);
    bytes32 hash = getHash(paymentInfo);
    uint256 amount = _release(hash);
    emit PaymentReclaimed(hash, amount);
    paymentInfo.token.transfer(paymentInfo.payer, amount);
  }

  /// Gives the payer back up to what was captured, funded through a refund collector.
  function refund(
    PaymentInfo calldata paymentInfo,
    uint256 amount,
    address tokenCollector,
    bytes calldata collectorData
  ) external nonReentrant onlySender(paymentInfo.operator) validAmount(amount) {
    uint48 now48 = uint48(block.timestamp);
    if (now48 >= paymentInfo.refundExpiry) revert AfterRefundExpiry(now48, paymentInfo.refundExpiry);
    bytes32 hash = getHash(paymentInfo);
    uint120 captured = paymentState[hash].refundableAmount;
    if (captured < amount) revert RefundExceedsCapture(amount, captured);
    paymentState[hash].refundableAmount = captured - uint120(amount);
    emit PaymentRefunded(hash, amount, tokenCollector);
    _collectTokens(paymentInfo, amount, tokenCollector, collectorData, ITokenCollector.CollectorType.Refund);
    paymentInfo.token.transfer(paymentInfo.payer, amount);
  }

  /// The payment's id: bound to this chain and this escrow.
  function getHash(PaymentInfo calldata paymentInfo) public view returns (bytes32) {
    bytes32 infoHash = keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo));
    return keccak256(abi.encode(block.chainid, address(this), infoHash));
  }

  function _release(bytes32 hash) private returns (uint256 amount) {
    amount = paymentState[hash].capturableAmount;
    if (amount == 0) revert ZeroAuthorization(hash);
    paymentState[hash].capturableAmount = 0;
  }

  function _validatePayment(PaymentInfo calldata info, uint256 amount) private view {
    if (amount > info.maxAmount) revert ExceedsMaxAmount(amount, info.maxAmount);
    uint48 now48 = uint48(block.timestamp);
    if (now48 >= info.preApprovalExpiry) revert AfterPreApprovalExpiry(now48, info.preApprovalExpiry);
    if (info.preApprovalExpiry > info.authorizationExpiry || info.authorizationExpiry > info.refundExpiry)
      revert InvalidExpiries(info.preApprovalExpiry, info.authorizationExpiry, info.refundExpiry);
    if (info.minFeeBps > info.maxFeeBps || info.maxFeeBps > MAX_FEE_BPS)
      revert InvalidFeeBpsRange(info.minFeeBps, info.maxFeeBps);
  }

  function _validateFee(PaymentInfo calldata info, uint16 feeBps, address feeReceiver) private pure {
    if (feeBps < info.minFeeBps || feeBps > info.maxFeeBps)
      revert FeeBpsOutOfRange(feeBps, info.minFeeBps, info.maxFeeBps);
    if (feeBps > 0 && feeReceiver == address(0)) revert ZeroFeeReceiver();
    if (info.feeReceiver != address(0) && info.feeReceiver != feeReceiver)
      revert InvalidFeeReceiver(feeReceiver, info.feeReceiver);
  }

  /// Has the collector move exactly `amount` into the escrow, or reverts.
  function _collectTokens(
    PaymentInfo calldata info,
    uint256 amount,
    address tokenCollector,
    bytes calldata collectorData,
    ITokenCollector.CollectorType expected
  ) private {
    if (tokenCollector.code.length == 0 || ITokenCollector(tokenCollector).collectorType() != expected)
      revert InvalidCollectorForOperation();
    uint256 before = info.token.balanceOf(address(this));
    ITokenCollector(tokenCollector).collectTokens(info, amount, collectorData);
    if (info.token.balanceOf(address(this)) != before + amount) revert TokenCollectionFailed();
  }

  function _distribute(address token, address receiver, uint256 amount, uint16 feeBps, address feeReceiver) private {
    uint256 fee = (amount * feeBps) / MAX_FEE_BPS;
    if (fee > 0) token.transfer(feeReceiver, fee);
    if (amount - fee > 0) token.transfer(receiver, amount - fee);
  }
}

/// A collector only the escrow may call; it moves tokens straight into the escrow.
abstract contract EscrowTokenCollector is ITokenCollector {
  error OnlyEscrow(address sender);

  AuthCaptureEscrow public immutable escrow;

  constructor(address escrow_) {
    escrow = AuthCaptureEscrow(escrow_);
  }

  function collectTokens(
    AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
    uint256 amount,
    bytes calldata collectorData
  ) external {
    if (msg.sender != address(escrow)) revert OnlyEscrow(msg.sender);
    _collect(paymentInfo, amount, collectorData);
  }

  function _collect(
    AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
    uint256 amount,
    bytes calldata collectorData
  ) internal virtual;
}

/**
 * The plain-ERC20 payment route: the payer approves this collector and pre-approves the exact
 * payment (its hash at the escrow); the escrow's authorize or charge then pulls the amount from
 * the payer, once.
 */
contract PreApprovalPaymentCollector is EscrowTokenCollector {
  using SafeToken for address;

  /// Per payment hash: pre-approved by its payer and not collected yet.
  mapping(bytes32 => bool) public isPreApproved;

  event PaymentPreApproved(bytes32 indexed paymentInfoHash);

  error NotPayer(address sender, address payer);
  error PaymentAlreadyPreApproved(bytes32 paymentInfoHash);
  error PaymentAlreadyCollected(bytes32 paymentInfoHash);
  error PaymentNotPreApproved(bytes32 paymentInfoHash);
  error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry);

  constructor(address escrow_) EscrowTokenCollector(escrow_) {}

  function collectorType() external pure returns (CollectorType) {
    return CollectorType.Payment;
  }

  function preApprove(AuthCaptureEscrow.PaymentInfo calldata paymentInfo) external {
    if (msg.sender != paymentInfo.payer) revert NotPayer(msg.sender, paymentInfo.payer);
    uint48 now48 = uint48(block.timestamp);
    if (now48 >= paymentInfo.preApprovalExpiry)
      revert AfterPreApprovalExpiry(now48, paymentInfo.preApprovalExpiry);
    bytes32 hash = escrow.getHash(paymentInfo);
    (bool collected, , ) = escrow.paymentState(hash);
    if (collected) revert PaymentAlreadyCollected(hash);
    if (isPreApproved[hash]) revert PaymentAlreadyPreApproved(hash);
    isPreApproved[hash] = true;
    emit PaymentPreApproved(hash);
  }

  function _collect(AuthCaptureEscrow.PaymentInfo calldata paymentInfo, uint256 amount, bytes calldata)
    internal
    override
  {
    bytes32 hash = escrow.getHash(paymentInfo);
    if (!isPreApproved[hash]) revert PaymentNotPreApproved(hash);
    isPreApproved[hash] = false;
    paymentInfo.token.transferFrom(paymentInfo.payer, address(escrow), amount);
  }
}

/// Funds refunds from the payment's operator, who approved this collector.
contract OperatorRefundCollector is EscrowTokenCollector {
  using SafeToken for address;

  constructor(address escrow_) EscrowTokenCollector(escrow_) {}

  function collectorType() external pure returns (CollectorType) {
    return CollectorType.Refund;
  }

  function _collect(AuthCaptureEscrow.PaymentInfo calldata paymentInfo, uint256 amount, bytes calldata)
    internal
    override
  {
    paymentInfo.token.transferFrom(paymentInfo.operator, address(escrow), amount);
  }
}

interface IPreApprovalCollector {
  function preApprove(AuthCaptureEscrow.PaymentInfo calldata paymentInfo) external;
}

/**
 * Request's wrapper: one escrow payment per 8-byte payment reference. The wrapper is the
 * escrow's operator, payer and receiver of every payment it opens; it remembers the real payer,
 * merchant and operator, lets only that operator capture, void and refund, and settles each leg
 * through ERC20FeeProxy with the reference, so the fee proxy's events tell every leg apart: the
 * merchant's (with the fee) on capture and charge, the payer's (fee 0) on void, refund and
 * reclaim.
 */
contract ERC20CommerceEscrowWrapper is ReentrancyLock {
  using SafeToken for address;

  struct AuthParams {
    bytes8 paymentReference;
    address payer;
    address merchant;
    address operator;
    address token;
    uint256 amount;
    uint256 maxAmount;
    uint256 preApprovalExpiry;
    uint256 authorizationExpiry;
    uint256 refundExpiry;
    address tokenCollector;
    bytes collectorData;
  }

  struct ChargeParams {
    bytes8 paymentReference;
    address payer;
    address merchant;
    address operator;
    address token;
    uint256 amount;
    uint256 maxAmount;
    uint256 preApprovalExpiry;
    uint256 authorizationExpiry;
    uint256 refundExpiry;
    uint16 feeBps;
    address feeReceiver;
    address tokenCollector;
    bytes collectorData;
  }

  /// What the wrapper keeps of a payment: the parties and the escrow's `PaymentInfo` inputs.
  struct PaymentData {
    address payer;
    address merchant;
    address operator;
    address token;
    uint96 amount;
    uint96 maxAmount;
    uint48 preApprovalExpiry;
    uint48 authorizationExpiry;
    uint48 refundExpiry;
    bytes32 commercePaymentHash;
  }

  uint16 internal constant MAX_FEE_BPS = 10_000;

  AuthCaptureEscrow public immutable commerceEscrow;
  IERC20FeeProxy public immutable erc20FeeProxy;
  mapping(bytes8 => PaymentData) public payments;

  event PaymentAuthorized(
    bytes8 indexed paymentReference,
    address payer,
    address merchant,
    address token,
    uint256 amount,
    bytes32 commercePaymentHash
  );
  event CommercePaymentAuthorized(
    bytes8 indexed paymentReference,
    address payer,
    address merchant,
    uint256 amount
  );
  event PaymentCaptured(
    bytes8 indexed paymentReference,
    bytes32 commercePaymentHash,
    uint256 capturedAmount,
    address merchant
  );
  event PaymentVoided(
    bytes8 indexed paymentReference,
    bytes32 commercePaymentHash,
    uint256 voidedAmount,
    address payer
  );
  event PaymentRefunded(
    bytes8 indexed paymentReference,
    bytes32 commercePaymentHash,
    uint256 refundedAmount,
    address payer
  );
  event PaymentCharged(
    bytes8 indexed paymentReference,
    address payer,
    address merchant,
    address token,
    uint256 amount,
    bytes32 commercePaymentHash
  );
  event PaymentReclaimed(
    bytes8 indexed paymentReference,
    bytes32 commercePaymentHash,
    uint256 reclaimedAmount,
    address payer
  );

  error ZeroAddress();
  error ZeroPaymentReference();
  error NotPayerOrOperator(address sender);
  error NotOperator(address sender, address operator);
  error NotPayer(address sender, address payer);
  error PaymentNotFound(bytes8 paymentReference);
  error PaymentAlreadyExists(bytes8 paymentReference);
  error AmountTooLarge(uint256 amount, uint256 limit);
  error ExpiryTooLarge(uint256 expiry, uint256 limit);
  error InvalidFeeBps(uint16 feeBps);
  error ZeroFeeReceiver();

  constructor(address commerceEscrow_, address erc20FeeProxy_) {
    if (commerceEscrow_ == address(0) || erc20FeeProxy_ == address(0)) revert ZeroAddress();
    commerceEscrow = AuthCaptureEscrow(commerceEscrow_);
    erc20FeeProxy = IERC20FeeProxy(erc20FeeProxy_);
  }

  /**
   * Holds `amount` of the payer's tokens in the escrow. The payer approved this wrapper; the
   * tokens go payer → wrapper → (pre-approval collector) → escrow. Only the payer or the payment's
   * operator may open it (the documented contract lets anyone): anyone else could otherwise spend
   * a payer's standing approval of the wrapper on a payment to a merchant of their choosing.
   */
  function authorizePayment(AuthParams calldata params) external nonReentrant {
    _authorize(params);
  }

  /// The same as authorizePayment, under the name the wrapper also publishes.
  function authorizeCommercePayment(AuthParams calldata params) external nonReentrant {
    _authorize(params);
  }

  /// Authorizes and captures in one step: the merchant is paid at once, less `feeBps`.
  function chargePayment(ChargeParams calldata params) external nonReentrant {
    PaymentData memory data = _data(
      params.payer,
      params.merchant,
      params.operator,
      params.token,
      params.amount,
      params.maxAmount
    );
    _setExpiries(data, params.preApprovalExpiry, params.authorizationExpiry, params.refundExpiry);
    uint256 fee = _fee(params.amount, params.feeBps, params.feeReceiver);
    AuthCaptureEscrow.PaymentInfo memory info = _open(params.paymentReference, data, params.tokenCollector);
    commerceEscrow.charge(info, params.amount, params.tokenCollector, params.collectorData, 0, address(0));
    _pay(params.paymentReference, data.token, data.merchant, params.amount - fee, fee, params.feeReceiver);
    emit PaymentCharged(
      params.paymentReference,
      data.payer,
      data.merchant,
      data.token,
      params.amount,
      data.commercePaymentHash
    );
  }

  /// Takes `captureAmount` of what is held: the merchant gets it less `feeBps`, paid to `feeReceiver`.
  function capturePayment(
    bytes8 paymentReference,
    uint256 captureAmount,
    uint16 feeBps,
    address feeReceiver
  ) external nonReentrant {
    PaymentData memory data = _operated(paymentReference);
    uint256 fee = _fee(captureAmount, feeBps, feeReceiver);
    commerceEscrow.capture(_paymentInfo(paymentReference, data), captureAmount, 0, address(0));
    _pay(paymentReference, data.token, data.merchant, captureAmount - fee, fee, feeReceiver);
    emit PaymentCaptured(paymentReference, data.commercePaymentHash, captureAmount, data.merchant);
  }

  /// Gives the payer back everything still held.
  function voidPayment(bytes8 paymentReference) external nonReentrant {
    PaymentData memory data = _operated(paymentReference);
    (, uint120 capturable, ) = commerceEscrow.paymentState(data.commercePaymentHash);
    commerceEscrow.void(_paymentInfo(paymentReference, data));
    _pay(paymentReference, data.token, data.payer, capturable, 0, address(0));
    emit PaymentVoided(paymentReference, data.commercePaymentHash, capturable, data.payer);
  }

  /**
   * Gives the payer back up to what was captured. The operator funds it: it approved this
   * wrapper for `refundAmount`, and the wrapper (the escrow's operator) approves the refund
   * collector, which pulls from the wrapper into the escrow.
   */
  function refundPayment(
    bytes8 paymentReference,
    uint256 refundAmount,
    address tokenCollector,
    bytes calldata collectorData
  ) external nonReentrant {
    PaymentData memory data = _operated(paymentReference);
    data.token.transferFrom(msg.sender, address(this), refundAmount);
    data.token.approve(tokenCollector, refundAmount);
    commerceEscrow.refund(_paymentInfo(paymentReference, data), refundAmount, tokenCollector, collectorData);
    _pay(paymentReference, data.token, data.payer, refundAmount, 0, address(0));
    emit PaymentRefunded(paymentReference, data.commercePaymentHash, refundAmount, data.payer);
  }

  /// The payer takes back what is still held once the authorization has expired.
  function reclaimPayment(bytes8 paymentReference) external nonReentrant {
    PaymentData memory data = _found(paymentReference);
    if (msg.sender != data.payer) revert NotPayer(msg.sender, data.payer);
    (, uint120 capturable, ) = commerceEscrow.paymentState(data.commercePaymentHash);
    commerceEscrow.reclaim(_paymentInfo(paymentReference, data));
    _pay(paymentReference, data.token, data.payer, capturable, 0, address(0));
    emit PaymentReclaimed(paymentReference, data.commercePaymentHash, capturable, data.payer);
  }

  function getPaymentData(bytes8 paymentReference) external view returns (PaymentData memory) {
    return payments[paymentReference];
  }

  /// The escrow's state of the payment (all zero for an unknown reference).
  function getPaymentState(bytes8 paymentReference)
    public
    view
    returns (bool hasCollectedPayment, uint120 capturableAmount, uint120 refundableAmount)
  {
    bytes32 hash = payments[paymentReference].commercePaymentHash;
    if (hash == bytes32(0)) return (false, 0, 0);
    return commerceEscrow.paymentState(hash);
  }

  function canCapture(bytes8 paymentReference) external view returns (bool) {
    (, uint120 capturable, ) = getPaymentState(paymentReference);
    return capturable > 0 && block.timestamp < payments[paymentReference].authorizationExpiry;
  }

  function canVoid(bytes8 paymentReference) external view returns (bool) {
    (, uint120 capturable, ) = getPaymentState(paymentReference);
    return capturable > 0;
  }

  function _authorize(AuthParams calldata params) private {
    PaymentData memory data = _data(
      params.payer,
      params.merchant,
      params.operator,
      params.token,
      params.amount,
      params.maxAmount
    );
    _setExpiries(data, params.preApprovalExpiry, params.authorizationExpiry, params.refundExpiry);
    AuthCaptureEscrow.PaymentInfo memory info = _open(params.paymentReference, data, params.tokenCollector);
    commerceEscrow.authorize(info, params.amount, params.tokenCollector, params.collectorData);
    emit PaymentAuthorized(
      params.paymentReference,
      data.payer,
      data.merchant,
      data.token,
      params.amount,
      data.commercePaymentHash
    );
    emit CommercePaymentAuthorized(params.paymentReference, data.payer, data.merchant, params.amount);
  }

  function _data(
    address payer,
    address merchant,
    address operator,
    address token,
    uint256 amount,
    uint256 maxAmount
  ) private view returns (PaymentData memory data) {
    if (msg.sender != payer && msg.sender != operator) revert NotPayerOrOperator(msg.sender);
    if (payer == address(0) || merchant == address(0) || operator == address(0) || token == address(0))
      revert ZeroAddress();
    data.payer = payer;
    data.merchant = merchant;
    data.operator = operator;
    data.token = token;
    data.amount = _uint96(amount);
    data.maxAmount = _uint96(maxAmount);
  }

  function _setExpiries(
    PaymentData memory data,
    uint256 preApprovalExpiry,
    uint256 authorizationExpiry,
    uint256 refundExpiry
  ) private pure {
    data.preApprovalExpiry = _uint48(preApprovalExpiry);
    data.authorizationExpiry = _uint48(authorizationExpiry);
    data.refundExpiry = _uint48(refundExpiry);
  }

  /// Records the payment, moves the payer's tokens here and pre-approves them for the escrow.
  function _open(
    bytes8 paymentReference,
    PaymentData memory data,
    address tokenCollector
  ) private returns (AuthCaptureEscrow.PaymentInfo memory info) {
    if (paymentReference == bytes8(0)) revert ZeroPaymentReference();
    if (payments[paymentReference].payer != address(0)) revert PaymentAlreadyExists(paymentReference);
    info = _paymentInfo(paymentReference, data);
    data.commercePaymentHash = commerceEscrow.getHash(info);
    payments[paymentReference] = data;
    data.token.transferFrom(data.payer, address(this), data.amount);
    data.token.approve(tokenCollector, data.amount);
    IPreApprovalCollector(tokenCollector).preApprove(info);
  }

  /// The escrow's view of the payment: the wrapper is its operator, payer and receiver.
  function _paymentInfo(bytes8 paymentReference, PaymentData memory data)
    private
    view
    returns (AuthCaptureEscrow.PaymentInfo memory)
  {
    return
      AuthCaptureEscrow.PaymentInfo({
        operator: address(this),
        payer: address(this),
        receiver: address(this),
        token: data.token,
        maxAmount: data.maxAmount,
        preApprovalExpiry: data.preApprovalExpiry,
        authorizationExpiry: data.authorizationExpiry,
        refundExpiry: data.refundExpiry,
        minFeeBps: 0,
        maxFeeBps: MAX_FEE_BPS,
        feeReceiver: address(0),
        salt: uint256(keccak256(abi.encodePacked(paymentReference)))
      });
  }

  function _found(bytes8 paymentReference) private view returns (PaymentData memory data) {
    data = payments[paymentReference];
    if (data.payer == address(0)) revert PaymentNotFound(paymentReference);
  }

  function _operated(bytes8 paymentReference) private view returns (PaymentData memory data) {
    data = _found(paymentReference);
    if (msg.sender != data.operator) revert NotOperator(msg.sender, data.operator);
  }

  function _fee(uint256 amount, uint16 feeBps, address feeReceiver) private pure returns (uint256 fee) {
    if (feeBps > MAX_FEE_BPS) revert InvalidFeeBps(feeBps);
    fee = (amount * feeBps) / MAX_FEE_BPS;
    // ERC20FeeProxy moves no fee to the zero address: it would stay in the wrapper.
    if (fee > 0 && feeReceiver == address(0)) revert ZeroFeeReceiver();
  }

  /// Pays `amount` to `to` and `fee` to `feeReceiver` through ERC20FeeProxy, with the reference.
  function _pay(
    bytes8 paymentReference,
    address token,
    address to,
    uint256 amount,
    uint256 fee,
    address feeReceiver
  ) private {
    token.approve(address(erc20FeeProxy), amount + fee);
    erc20FeeProxy.transferFromWithReferenceAndFee(
      token,
      to,
      amount,
      abi.encodePacked(paymentReference),
      fee,
      feeReceiver
    );
  }

  function _uint96(uint256 amount) private pure returns (uint96) {
    if (amount > type(uint96).max) revert AmountTooLarge(amount, type(uint96).max);
    return uint96(amount);
  }

  function _uint48(uint256 expiry) private pure returns (uint48) {
    if (expiry > type(uint48).max) revert ExpiryTooLarge(expiry, type(uint48).max);
    return uint48(expiry);
  }
}
