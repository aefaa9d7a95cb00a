// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

import {ITokenCollector} from "./ITokenCollector.sol";
import {ReentrancyLock} from "./ReentrancyLock.sol";
import {SafeToken} from "./SafeToken.sol";

/*
 * Commerce payments, written for payreq from the interface and rules described in its contracts
 * reference (section 5): Coinbase's AuthCaptureEscrow (authorize, capture, void, refund, charge,
 * reclaim of one `PaymentInfo`), two token collectors (PreApprovalPaymentCollector.sol,
 * OperatorRefundCollector.sol), and Request's ERC20CommerceEscrowWrapper, which keys each payment
 * by its 8-byte Request reference and settles every leg through ERC20FeeProxy. Same structs,
 * selectors, events and hash as the documented contracts; self-contained (no library imports, no
 * transient storage) so the sandbox compiles them offline and runs them on any EVM version.
 */
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
