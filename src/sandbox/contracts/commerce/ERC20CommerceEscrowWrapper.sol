// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {CommerceTerms} from "./CommerceTerms.sol";
import {IERC20FeeProxy} from "./IERC20FeeProxy.sol";
import {IPreApprovalCollector} from "./IPreApprovalCollector.sol";
import {ReentrancyLock} from "./ReentrancyLock.sol";
import {SafeToken} from "./SafeToken.sol";

/**
 * Request's wrapper: one escrow payment per 8-byte payment reference. The wrapper is the
 * escrow's operator, payer and receiver of every payment it opens; it remembers the real payer,
 * merchant and operator, lets only that operator capture, void and refund, and settles each leg
 * through ERC20FeeProxy with the reference, so the fee proxy's events tell every leg apart: the
 * merchant's (with the fee) on capture and charge, the payer's (fee 0) on void, refund and
 * reclaim. Authorizations and charges need the payer's consent to their terms (CommerceTerms).
 */
contract ERC20CommerceEscrowWrapper is ReentrancyLock, CommerceTerms {
  using SafeToken for address;

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
  error NotOperator(address sender, address operator);
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
   * tokens go payer → wrapper → (pre-approval collector) → escrow. Sent by the payer, or by
   * anyone on terms the payer pre-approved (the documented contract lets anyone send any terms:
   * anyone could then spend a payer's standing approval of the wrapper on a payment they operate
   * to a merchant of their choosing).
   */
  function authorizePayment(AuthParams calldata params) external nonReentrant {
    _authorize(params);
  }

  /// The same as authorizePayment, under the name the wrapper also publishes.
  function authorizeCommercePayment(AuthParams calldata params) external nonReentrant {
    _authorize(params);
  }

  /// Authorizes and captures in one step: the merchant is paid at once, less `feeBps`. Sent by
  /// the payer, or by anyone on terms the payer pre-approved.
  function chargePayment(ChargeParams calldata params) external nonReentrant {
    _consent(params.payer, chargeTermsHash(params));
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
    _consent(params.payer, authorizationTermsHash(params));
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
  ) private pure returns (PaymentData memory data) {
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
