// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

/// A storage-slot reentrancy lock (no transient storage: the sandbox's EVM may predate it).
abstract contract ReentrancyLock {
  error ReentrantCall();

  uint256 private _locked = 1;

  modifier nonReentrant() {
    if (_locked != 1) revert ReentrantCall();
    _locked = 2;
    _;
    _locked = 1;
  }
}
