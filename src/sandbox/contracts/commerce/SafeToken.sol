// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

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
