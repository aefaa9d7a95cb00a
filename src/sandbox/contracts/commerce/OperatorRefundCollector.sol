// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {EscrowTokenCollector} from "./EscrowTokenCollector.sol";
import {SafeToken} from "./SafeToken.sol";

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
