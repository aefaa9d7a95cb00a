// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/*
 * BatchAccount: the least a smart account does, written for payreq's sandbox and tests. It has
 * one owner and runs a batch of calls atomically, as itself: every call succeeds or none
 * happened. The owner sends the batch (`executeBatch`), or signs it and anyone relays it
 * (`executeBatchSigned`), as an ERC-4337 bundler relays a user operation: the owner then sends
 * no transaction. The signature is EIP-191 over the chain id, this account, its nonce, the
 * deadline and the ABI-encoded calls, so a batch runs once, here, before its deadline.
 * Self-contained (no library imports) so it compiles offline. Not audited: a stand-in, not a
 * wallet to hold value in.
 */
contract BatchAccount {
  struct Call {
    address target;
    uint256 value;
    bytes data;
  }

  address public immutable owner;
  /// The next signed batch's number; each signed batch uses one.
  uint256 public nonce;

  error BatchAccount__NotOwner();
  error BatchAccount__Expired();
  error BatchAccount__BadSignature();
  error BatchAccount__CallFailed(uint256 index, bytes reason);

  constructor(address owner_) {
    owner = owner_;
  }

  receive() external payable {}

  function executeBatch(Call[] calldata calls) external payable {
    if (msg.sender != owner) revert BatchAccount__NotOwner();
    _run(calls);
  }

  function executeBatchSigned(
    Call[] calldata calls,
    uint256 deadline,
    bytes calldata signature
  ) external payable {
    if (block.timestamp > deadline) revert BatchAccount__Expired();
    bytes32 digest = batchDigest(calls, nonce, deadline);
    nonce += 1;
    if (_recover(digest, signature) != owner) revert BatchAccount__BadSignature();
    _run(calls);
  }

  /// What the owner signs (EIP-191, "\x19Ethereum Signed Message:\n32" + this hash).
  function batchHash(
    Call[] calldata calls,
    uint256 batchNonce,
    uint256 deadline
  ) public view returns (bytes32) {
    return keccak256(abi.encode(block.chainid, address(this), batchNonce, deadline, calls));
  }

  function batchDigest(
    Call[] calldata calls,
    uint256 batchNonce,
    uint256 deadline
  ) internal view returns (bytes32) {
    return
      keccak256(
        abi.encodePacked('\x19Ethereum Signed Message:\n32', batchHash(calls, batchNonce, deadline))
      );
  }

  function _run(Call[] calldata calls) private {
    for (uint256 i = 0; i < calls.length; i++) {
      (bool ok, bytes memory reason) = calls[i].target.call{value: calls[i].value}(calls[i].data);
      if (!ok) revert BatchAccount__CallFailed(i, reason);
    }
  }

  /// ecrecover of a 65-byte r ‖ s ‖ v signature; malleable (high s) ones are refused.
  function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
    if (signature.length != 65) revert BatchAccount__BadSignature();
    bytes32 r = bytes32(signature[0:32]);
    bytes32 s = bytes32(signature[32:64]);
    uint8 v = uint8(signature[64]);
    if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) {
      revert BatchAccount__BadSignature();
    }
    address signer = ecrecover(digest, v, r, s);
    if (signer == address(0)) revert BatchAccount__BadSignature();
    return signer;
  }
}
