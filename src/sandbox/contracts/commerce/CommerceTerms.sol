// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

/**
 * The terms of a commerce payment as the wrapper takes them (`AuthParams`, `ChargeParams`), and
 * the payer's consent to them. payreq's deviation from Request's wrapper, which lets anyone
 * authorize or charge: there, whoever holds no rights can spend a payer's standing approval of
 * the wrapper on a payment they operate to a merchant of their choosing. Here a payer's funds
 * are held only on terms the payer agreed to, every field of them: the payer sends the call
 * itself, or pre-approved the exact terms (`preApproveAuthorization`, `preApproveCharge`), after
 * which anyone may send them, once.
 */
abstract contract CommerceTerms {
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

  /// Tell an authorization's terms from a charge's, whatever their encodings.
  bytes32 internal constant AUTHORIZATION_TERMS = keccak256("ERC20CommerceEscrowWrapper.authorizePayment");
  bytes32 internal constant CHARGE_TERMS = keccak256("ERC20CommerceEscrowWrapper.chargePayment");

  /// Per terms hash: pre-approved by the terms' payer and not used yet.
  mapping(bytes32 => bool) public preApprovedTerms;

  event PaymentTermsPreApproved(bytes8 indexed paymentReference, address indexed payer, bytes32 termsHash);

  error NotPayer(address sender, address payer);
  error TermsNotPreApproved(address sender, address payer, bytes32 termsHash);

  /// The payer consents to an authorization on exactly these terms, sent by anyone, once.
  function preApproveAuthorization(AuthParams calldata params) external {
    _preApprove(params.paymentReference, params.payer, authorizationTermsHash(params));
  }

  /// The payer consents to a charge on exactly these terms (fee included), sent by anyone, once.
  function preApproveCharge(ChargeParams calldata params) external {
    _preApprove(params.paymentReference, params.payer, chargeTermsHash(params));
  }

  function authorizationTermsHash(AuthParams calldata params) public pure returns (bytes32) {
    return keccak256(abi.encode(AUTHORIZATION_TERMS, params));
  }

  function chargeTermsHash(ChargeParams calldata params) public pure returns (bytes32) {
    return keccak256(abi.encode(CHARGE_TERMS, params));
  }

  function _preApprove(bytes8 paymentReference, address payer, bytes32 termsHash) private {
    if (msg.sender != payer) revert NotPayer(msg.sender, payer);
    preApprovedTerms[termsHash] = true;
    emit PaymentTermsPreApproved(paymentReference, payer, termsHash);
  }

  /// Passes when the payer sends the terms or pre-approved them; a pre-approval is used up.
  function _consent(address payer, bytes32 termsHash) internal {
    if (preApprovedTerms[termsHash]) {
      delete preApprovedTerms[termsHash];
      return;
    }
    if (msg.sender != payer) revert TermsNotPreApproved(msg.sender, payer, termsHash);
  }
}
