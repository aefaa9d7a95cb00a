// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

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
