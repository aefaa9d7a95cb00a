// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/*
 * A local Across V3, written for payreq from Across's documented interfaces so that the sandbox
 * and the tests move money between two local chains the way a route through the aggregator
 * does: a SpokePool (the deposit on the origin chain, the fill on the destination chain) and a
 * MulticallHandler (the recipient that runs a deposit's message). Same function signatures,
 * events, struct and relay hash as Across's V3 SpokePool; self-contained (no library imports)
 * so it compiles offline.
 *
 * Left out, on purpose: LP fees and the HubPool (the relayer's fee is simply inputAmount minus
 * outputAmount), slow fills and speed-ups, native-token deposits (msg.value must be 0), the
 * quote-timestamp and fill-deadline buffers, and repaying relayers (deposits stay in the origin
 * SpokePool). Across refunds an unfilled deposit to its depositor on the origin chain once the
 * dataworker proves it expired unfilled on the destination chain; here the SpokePool's
 * `refunder` (the sandbox's bridge relayer, which checks the destination chain) does it with
 * `refundExpired`.
 */

interface AcrossMessageHandler {
  function handleV3AcrossMessage(address tokenSent, uint256 amount, address relayer, bytes memory message) external;
}

/** Transfers and approvals that also accept tokens answering nothing (USDT), as OpenZeppelin's SafeERC20 does. */
library TokenCalls {
  error TokenCallFailed(address token);

  function transfer(address token, address to, uint256 amount) internal {
    call(token, abi.encodeWithSignature("transfer(address,uint256)", to, amount));
  }

  function transferFrom(address token, address from, address to, uint256 amount) internal {
    call(token, abi.encodeWithSignature("transferFrom(address,address,uint256)", from, to, amount));
  }

  function approve(address token, address spender, uint256 amount) internal {
    call(token, abi.encodeWithSignature("approve(address,uint256)", spender, amount));
  }

  function balanceOf(address token, address owner) internal view returns (uint256) {
    (bool ok, bytes memory data) = token.staticcall(abi.encodeWithSignature("balanceOf(address)", owner));
    if (!ok || data.length < 32) revert TokenCallFailed(token);
    return abi.decode(data, (uint256));
  }

  function call(address token, bytes memory data) private {
    if (token.code.length == 0) revert TokenCallFailed(token);
    (bool ok, bytes memory answer) = token.call(data);
    if (!ok || (answer.length > 0 && !abi.decode(answer, (bool)))) revert TokenCallFailed(token);
  }
}

contract SpokePool {
  enum FillStatus {
    Unfilled,
    RequestedSlowFill,
    Filled
  }

  enum FillType {
    FastFill,
    ReplacedSlowFill,
    SlowFill
  }

  struct V3RelayData {
    address depositor;
    address recipient;
    address exclusiveRelayer;
    address inputToken;
    address outputToken;
    uint256 inputAmount;
    uint256 outputAmount;
    uint256 originChainId;
    uint32 depositId;
    uint32 fillDeadline;
    uint32 exclusivityDeadline;
    bytes message;
  }

  struct V3RelayExecutionEventInfo {
    address updatedRecipient;
    bytes updatedMessage;
    uint256 updatedOutputAmount;
    FillType fillType;
  }

  /** What the origin chain keeps of a deposit, to refund it. */
  struct Deposit {
    address depositor;
    address inputToken;
    uint256 inputAmount;
    uint32 fillDeadline;
    bool refunded;
  }

  event V3FundsDeposited(
    address inputToken,
    address outputToken,
    uint256 inputAmount,
    uint256 outputAmount,
    uint256 indexed destinationChainId,
    uint32 indexed depositId,
    uint32 quoteTimestamp,
    uint32 fillDeadline,
    uint32 exclusivityDeadline,
    address indexed depositor,
    address recipient,
    address exclusiveRelayer,
    bytes message
  );

  event FilledV3Relay(
    address inputToken,
    address outputToken,
    uint256 inputAmount,
    uint256 outputAmount,
    uint256 repaymentChainId,
    uint256 indexed originChainId,
    uint32 indexed depositId,
    uint32 fillDeadline,
    uint32 exclusivityDeadline,
    address exclusiveRelayer,
    address indexed relayer,
    address depositor,
    address recipient,
    bytes message,
    V3RelayExecutionEventInfo relayExecutionInfo
  );

  /** Ours, not Across's: an unfilled deposit returned to its depositor after its deadline. */
  event ExpiredDepositRefunded(
    uint32 indexed depositId,
    address indexed depositor,
    address inputToken,
    uint256 inputAmount
  );

  error InvalidFillDeadline();
  error MsgValueDoesNotMatchInputAmount();
  error ExpiredFillDeadline();
  error NotExclusiveRelayer();
  error RelayFilled();
  error NotRefunder();
  error UnknownDeposit();
  error DepositNotExpired();
  error AlreadyRefunded();

  /** The next deposit's id, as Across counts them. */
  uint32 public numberOfDeposits;
  /** By relay hash: `keccak256(abi.encode(relayData, block.chainid))`. */
  mapping(bytes32 => uint256) public fillStatuses;
  mapping(uint32 => Deposit) public deposits;
  /** May refund expired deposits: the one who knows they were not filled elsewhere. */
  address public immutable refunder;

  constructor(address refunder_) {
    refunder = refunder_;
  }

  function depositV3(
    address depositor,
    address recipient,
    address inputToken,
    address outputToken,
    uint256 inputAmount,
    uint256 outputAmount,
    uint256 destinationChainId,
    address exclusiveRelayer,
    uint32 quoteTimestamp,
    uint32 fillDeadline,
    uint32 exclusivityDeadline,
    bytes calldata message
  ) external payable {
    if (fillDeadline <= block.timestamp) revert InvalidFillDeadline();
    if (msg.value != 0) revert MsgValueDoesNotMatchInputAmount();
    uint32 depositId = numberOfDeposits++;
    deposits[depositId] = Deposit(depositor, inputToken, inputAmount, fillDeadline, false);
    TokenCalls.transferFrom(inputToken, msg.sender, address(this), inputAmount);
    emit V3FundsDeposited(
      inputToken,
      outputToken,
      inputAmount,
      outputAmount,
      destinationChainId,
      depositId,
      quoteTimestamp,
      fillDeadline,
      exclusivityDeadline,
      depositor,
      recipient,
      exclusiveRelayer,
      message
    );
  }

  /**
   * The relayer pays `outputAmount` of `outputToken` from its own balance to the recipient and,
   * when there is a message and the recipient is a contract, hands it the message; a handler
   * that reverts reverts the fill.
   */
  function fillV3Relay(V3RelayData calldata relayData, uint256 repaymentChainId) external {
    if (relayData.fillDeadline < block.timestamp) revert ExpiredFillDeadline();
    if (
      relayData.exclusiveRelayer != address(0) &&
      relayData.exclusivityDeadline >= block.timestamp &&
      relayData.exclusiveRelayer != msg.sender
    ) revert NotExclusiveRelayer();
    bytes32 relayHash = keccak256(abi.encode(relayData, block.chainid));
    if (fillStatuses[relayHash] == uint256(FillStatus.Filled)) revert RelayFilled();
    fillStatuses[relayHash] = uint256(FillStatus.Filled);

    emit FilledV3Relay(
      relayData.inputToken,
      relayData.outputToken,
      relayData.inputAmount,
      relayData.outputAmount,
      repaymentChainId,
      relayData.originChainId,
      relayData.depositId,
      relayData.fillDeadline,
      relayData.exclusivityDeadline,
      relayData.exclusiveRelayer,
      msg.sender,
      relayData.depositor,
      relayData.recipient,
      relayData.message,
      V3RelayExecutionEventInfo(relayData.recipient, relayData.message, relayData.outputAmount, FillType.FastFill)
    );

    TokenCalls.transferFrom(relayData.outputToken, msg.sender, relayData.recipient, relayData.outputAmount);
    if (relayData.recipient.code.length > 0 && relayData.message.length > 0) {
      AcrossMessageHandler(relayData.recipient).handleV3AcrossMessage(
        relayData.outputToken,
        relayData.outputAmount,
        msg.sender,
        relayData.message
      );
    }
  }

  /** Returns an expired deposit to its depositor; only the refunder knows it was never filled. */
  function refundExpired(uint32 depositId) external {
    if (msg.sender != refunder) revert NotRefunder();
    Deposit storage deposit = deposits[depositId];
    if (deposit.depositor == address(0)) revert UnknownDeposit();
    if (deposit.fillDeadline >= block.timestamp) revert DepositNotExpired();
    if (deposit.refunded) revert AlreadyRefunded();
    deposit.refunded = true;
    TokenCalls.transfer(deposit.inputToken, deposit.depositor, deposit.inputAmount);
    emit ExpiredDepositRefunded(depositId, deposit.depositor, deposit.inputToken, deposit.inputAmount);
  }
}

/*
 * Across's MulticallHandler pattern, reading payreq's message: (fallbackRecipient, calls). Each
 * call approves `approvalAddress` for `amount` of `token`, then calls `target` with `callData`.
 * The calls run in a call to itself: when any fails, all of them are undone and everything the
 * fill brought goes to the fallback recipient; what the calls leave goes there too. Anyone may
 * call it (as Across's): it only ever spends its own balance, which is empty between fills.
 */
contract MulticallHandler is AcrossMessageHandler {
  struct Call {
    address target;
    bytes callData;
    address approvalAddress;
    address token;
    uint256 amount;
  }

  event CallsFailed(address indexed fallbackRecipient);
  event DrainedTokens(address indexed recipient, address indexed token, uint256 indexed amount);

  error CallReverted(uint256 index, bytes reason);
  error NotSelf();

  function handleV3AcrossMessage(address tokenSent, uint256, address, bytes memory message) external {
    (address fallbackRecipient, Call[] memory calls) = abi.decode(message, (address, Call[]));
    try this.attemptCalls(calls) {} catch {
      emit CallsFailed(fallbackRecipient);
    }
    drain(tokenSent, fallbackRecipient);
    for (uint256 i = 0; i < calls.length; i++) drain(calls[i].token, fallbackRecipient);
  }

  function attemptCalls(Call[] memory calls) external {
    if (msg.sender != address(this)) revert NotSelf();
    for (uint256 i = 0; i < calls.length; i++) {
      Call memory c = calls[i];
      TokenCalls.approve(c.token, c.approvalAddress, c.amount);
      (bool ok, bytes memory reason) = c.target.call(c.callData);
      if (!ok) revert CallReverted(i, reason);
      TokenCalls.approve(c.token, c.approvalAddress, 0);
    }
  }

  function drain(address token, address to) private {
    uint256 amount = TokenCalls.balanceOf(token, address(this));
    if (amount == 0) return;
    TokenCalls.transfer(token, to, amount);
    emit DrainedTokens(to, token, amount);
  }
}
