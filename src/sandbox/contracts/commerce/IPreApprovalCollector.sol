// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

import {AuthCaptureEscrow} from "./AuthCaptureEscrow.sol";

interface IPreApprovalCollector {
  function preApprove(AuthCaptureEscrow.PaymentInfo calldata paymentInfo) external;
}
