// SPDX-License-Identifier: MIT
pragma solidity ^0.8.9;

/*
 * ERC20RecurringPaymentProxy, written for payreq from the interface and behaviour described in
 * its contracts reference (section 4): a payer signs one EIP-712 `SchedulePermit`, and an
 * address holding RELAYER_ROLE then triggers each payment of the schedule through
 * ERC20FeeProxy, with its own payment reference. Same selectors, errors, typehash and domain
 * as the deployed contract; self-contained (no library imports) so the sandbox can compile it
 * offline. Role, pause and ownership reverts carry the same strings as OpenZeppelin 4.9's.
 */

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

contract ERC20RecurringPaymentProxy {
  struct SchedulePermit {
    address subscriber;
    address token;
    address recipient;
    address feeAddress;
    uint128 amount;
    uint128 feeAmount;
    uint128 relayerFee;
    uint32 periodSeconds;
    uint32 firstPayment;
    uint8 totalPayments;
    uint256 nonce;
    uint256 deadline;
    bool strictOrder;
  }

  error ERC20RecurringPaymentProxy__BadSignature();
  error ERC20RecurringPaymentProxy__SignatureExpired();
  /// Declared for ABI parity: a uint8 index always fits the 256-bit bitmap, so never raised.
  error ERC20RecurringPaymentProxy__IndexTooLarge();
  error ERC20RecurringPaymentProxy__PaymentOutOfOrder();
  error ERC20RecurringPaymentProxy__IndexOutOfBounds();
  error ERC20RecurringPaymentProxy__NotDueYet();
  error ERC20RecurringPaymentProxy__AlreadyPaid();
  error ERC20RecurringPaymentProxy__ZeroAddress();

  event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender);
  event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender);
  event Paused(address account);
  event Unpaused(address account);
  event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

  bytes32 public constant DEFAULT_ADMIN_ROLE = 0x00;
  bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
  bytes32 public constant SCHEDULE_PERMIT_TYPEHASH =
    keccak256(
      "SchedulePermit(address subscriber,address token,address recipient,address feeAddress,uint128 amount,uint128 feeAmount,uint128 relayerFee,uint32 periodSeconds,uint32 firstPayment,uint8 totalPayments,uint256 nonce,uint256 deadline,bool strictOrder)"
    );
  bytes32 private constant DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
  bytes32 private constant NAME_HASH = keccak256("ERC20RecurringPaymentProxy");
  bytes32 private constant VERSION_HASH = keccak256("1");
  /// Upper bound of `s` in the lower half of the curve order (EIP-2): rejects malleable twins.
  uint256 private constant MAX_S = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

  IERC20FeeProxy public erc20FeeProxy;
  address public owner;
  bool public paused;
  /// Per schedule digest: bit i set once index i has been paid.
  mapping(bytes32 => uint256) public triggeredPaymentsBitmap;
  /// Per schedule digest: the index paid last (what `strictOrder` counts from).
  mapping(bytes32 => uint8) public lastPaymentIndex;

  mapping(bytes32 => mapping(address => bool)) private _roles;
  uint256 private _entered;
  // The domain separator is cached for the deployment chain and rebuilt after a fork.
  uint256 private immutable _cachedChainId;
  bytes32 private immutable _cachedDomainSeparator;

  constructor(address adminSafe, address relayerEOA, address erc20FeeProxyAddress) {
    if (adminSafe == address(0) || relayerEOA == address(0) || erc20FeeProxyAddress == address(0))
      revert ERC20RecurringPaymentProxy__ZeroAddress();
    _cachedChainId = block.chainid;
    _cachedDomainSeparator = _buildDomainSeparator();
    erc20FeeProxy = IERC20FeeProxy(erc20FeeProxyAddress);
    owner = adminSafe;
    emit OwnershipTransferred(address(0), adminSafe);
    _grantRole(DEFAULT_ADMIN_ROLE, adminSafe);
    _grantRole(RELAYER_ROLE, relayerEOA);
  }

  modifier onlyRole(bytes32 role) {
    if (!_roles[role][msg.sender]) {
      revert(
        string(
          abi.encodePacked(
            "AccessControl: account ",
            _toHex(uint256(uint160(msg.sender)), 20),
            " is missing role ",
            _toHex(uint256(role), 32)
          )
        )
      );
    }
    _;
  }

  modifier onlyOwner() {
    require(msg.sender == owner, "Ownable: caller is not the owner");
    _;
  }

  modifier whenNotPaused() {
    require(!paused, "Pausable: paused");
    _;
  }

  modifier nonReentrant() {
    require(_entered == 0, "ReentrancyGuard: reentrant call");
    _entered = 1;
    _;
    _entered = 0;
  }

  /**
   * Pays `index` (1-based) of the schedule `p` signed by `p.subscriber`. Checks, in order: the
   * signature, the deadline, the order under `strictOrder`, the bound, the due date (index 0
   * underflows there), then that the index is not paid yet.
   */
  function triggerRecurringPayment(
    SchedulePermit calldata p,
    bytes calldata signature,
    uint8 index,
    bytes calldata paymentReference
  ) external whenNotPaused onlyRole(RELAYER_ROLE) nonReentrant {
    _claim(p, signature, index);
    _pay(p, paymentReference);
  }

  /// The checks in their documented order; marks the index paid before any token moves.
  function _claim(SchedulePermit calldata p, bytes calldata signature, uint8 index) private {
    bytes32 digest = _hashTypedData(keccak256(abi.encode(SCHEDULE_PERMIT_TYPEHASH, p)));
    if (_recover(digest, signature) != p.subscriber)
      revert ERC20RecurringPaymentProxy__BadSignature();
    if (block.timestamp > p.deadline) revert ERC20RecurringPaymentProxy__SignatureExpired();
    if (p.strictOrder && uint256(index) != uint256(lastPaymentIndex[digest]) + 1)
      revert ERC20RecurringPaymentProxy__PaymentOutOfOrder();
    if (index > p.totalPayments) revert ERC20RecurringPaymentProxy__IndexOutOfBounds();
    if (block.timestamp < uint256(p.firstPayment) + uint256(index - 1) * uint256(p.periodSeconds))
      revert ERC20RecurringPaymentProxy__NotDueYet();
    uint256 bit = uint256(1) << index;
    uint256 paid = triggeredPaymentsBitmap[digest];
    if (paid & bit != 0) revert ERC20RecurringPaymentProxy__AlreadyPaid();
    triggeredPaymentsBitmap[digest] = paid | bit;
    lastPaymentIndex[digest] = index;
  }

  /// Pulls the payment, pays it through ERC20FeeProxy and gives the relayer its fee.
  function _pay(SchedulePermit calldata p, bytes calldata paymentReference) private {
    // ERC20FeeProxy moves the fee only to a non-zero fee address: pull only what it will move.
    uint256 toProxy = uint256(p.amount) + (p.feeAddress == address(0) ? 0 : uint256(p.feeAmount));
    _call(
      p.token,
      abi.encodeWithSelector(0x23b872dd, p.subscriber, address(this), toProxy + p.relayerFee)
    );
    // Zero first: tokens such as USDT refuse to change one non-zero allowance into another.
    _call(p.token, abi.encodeWithSelector(0x095ea7b3, address(erc20FeeProxy), 0));
    _call(p.token, abi.encodeWithSelector(0x095ea7b3, address(erc20FeeProxy), toProxy));
    erc20FeeProxy.transferFromWithReferenceAndFee(
      p.token,
      p.recipient,
      p.amount,
      paymentReference,
      p.feeAmount,
      p.feeAddress
    );
    if (p.relayerFee > 0)
      _call(p.token, abi.encodeWithSelector(0xa9059cbb, msg.sender, uint256(p.relayerFee)));
  }

  function setRelayer(address oldRelayer, address newRelayer) external onlyOwner {
    if (newRelayer == address(0)) revert ERC20RecurringPaymentProxy__ZeroAddress();
    _revokeRole(RELAYER_ROLE, oldRelayer);
    _grantRole(RELAYER_ROLE, newRelayer);
  }

  function setFeeProxy(address newFeeProxy) external onlyOwner {
    if (newFeeProxy == address(0)) revert ERC20RecurringPaymentProxy__ZeroAddress();
    erc20FeeProxy = IERC20FeeProxy(newFeeProxy);
  }

  function pause() external onlyOwner {
    require(!paused, "Pausable: paused");
    paused = true;
    emit Paused(msg.sender);
  }

  function unpause() external onlyOwner {
    require(paused, "Pausable: not paused");
    paused = false;
    emit Unpaused(msg.sender);
  }

  function transferOwnership(address newOwner) external onlyOwner {
    require(newOwner != address(0), "Ownable: new owner is the zero address");
    emit OwnershipTransferred(owner, newOwner);
    owner = newOwner;
  }

  function hasRole(bytes32 role, address account) external view returns (bool) {
    return _roles[role][account];
  }

  function getRoleAdmin(bytes32) external pure returns (bytes32) {
    return DEFAULT_ADMIN_ROLE;
  }

  function grantRole(bytes32 role, address account) external onlyRole(DEFAULT_ADMIN_ROLE) {
    _grantRole(role, account);
  }

  function revokeRole(bytes32 role, address account) external onlyRole(DEFAULT_ADMIN_ROLE) {
    _revokeRole(role, account);
  }

  function renounceRole(bytes32 role, address account) external {
    require(account == msg.sender, "AccessControl: can only renounce roles for self");
    _revokeRole(role, account);
  }

  function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
    // ERC-165 itself and IAccessControl.
    return interfaceId == 0x01ffc9a7 || interfaceId == 0x7965db0b;
  }

  /// ERC-5267: name, version, chainId and verifyingContract are set (fields 0x0f).
  function eip712Domain()
    external
    view
    returns (
      bytes1 fields,
      string memory name,
      string memory version,
      uint256 chainId,
      address verifyingContract,
      bytes32 salt,
      uint256[] memory extensions
    )
  {
    return (hex"0f", "ERC20RecurringPaymentProxy", "1", block.chainid, address(this), bytes32(0), new uint256[](0));
  }

  function _hashTypedData(bytes32 structHash) private view returns (bytes32) {
    bytes32 separator = block.chainid == _cachedChainId
      ? _cachedDomainSeparator
      : _buildDomainSeparator();
    return keccak256(abi.encodePacked("\x19\x01", separator, structHash));
  }

  function _buildDomainSeparator() private view returns (bytes32) {
    return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
  }

  /// The signer of a 65-byte `r ‖ s ‖ v` signature; zero for any signature that is not canonical.
  function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
    if (signature.length != 65) return address(0);
    bytes32 r = bytes32(signature[0:32]);
    bytes32 s = bytes32(signature[32:64]);
    uint8 v = uint8(signature[64]);
    if (uint256(s) > MAX_S || (v != 27 && v != 28)) return address(0);
    return ecrecover(digest, v, r, s);
  }

  /// A token call that must succeed and return nothing or `true` (USDT returns nothing).
  function _call(address token, bytes memory data) private {
    require(token.code.length > 0, "ERC20RecurringPaymentProxy: token has no code");
    (bool ok, bytes memory result) = token.call(data);
    if (!ok) {
      // The token's own reason (an allowance or balance too low) reaches the relayer as is.
      assembly {
        revert(add(result, 32), mload(result))
      }
    }
    require(
      result.length == 0 || abi.decode(result, (bool)),
      "ERC20RecurringPaymentProxy: token call failed"
    );
  }

  function _grantRole(bytes32 role, address account) private {
    if (_roles[role][account]) return;
    _roles[role][account] = true;
    emit RoleGranted(role, account, msg.sender);
  }

  function _revokeRole(bytes32 role, address account) private {
    if (!_roles[role][account]) return;
    _roles[role][account] = false;
    emit RoleRevoked(role, account, msg.sender);
  }

  function _toHex(uint256 value, uint256 length) private pure returns (string memory) {
    bytes16 digits = "0123456789abcdef";
    bytes memory out = new bytes(2 + length * 2);
    out[0] = "0";
    out[1] = "x";
    for (uint256 i = 2 * length + 1; i > 1; --i) {
      out[i] = digits[value & 0xf];
      value >>= 4;
    }
    return string(out);
  }
}
