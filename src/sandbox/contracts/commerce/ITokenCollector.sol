// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";

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
