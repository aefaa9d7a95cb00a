// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {EscrowTokenCollector} from "./EscrowTokenCollector.sol";
import {SafeToken} from "./SafeToken.sol";

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
