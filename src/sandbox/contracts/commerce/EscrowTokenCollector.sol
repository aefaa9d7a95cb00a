// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";
import {ITokenCollector} from "./ITokenCollector.sol";

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
