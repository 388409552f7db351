// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Counter - the contract the end-to-end tests deploy. It exercises what a client sees from a
/// node: storage (slot 0 = count, slot 1 = owner), an indexed event, a view, the three kinds of
/// revert data (Error(string), a custom error, Panic(uint256)) and a payable function.
contract Counter {
    /// Raised by `restricted` for anyone but the deployer.
    error Unauthorized(address caller);

    event Incremented(address indexed by, uint256 value);
    event Deposited(address indexed from, uint256 amount);

    uint256 public count; // slot 0
    address public owner; // slot 1

    constructor() {
        owner = msg.sender;
    }

    /// Adds one and logs the new value.
    function increment() external {
        count += 1;
        emit Incremented(msg.sender, count);
    }

    /// Adds `n` (at most 100, else reverts with the reason "counter: too big").
    function incrementBy(uint256 n) external {
        require(n <= 100, "counter: too big");
        count += n;
        emit Incremented(msg.sender, count);
    }

    /// Always reverts with the reason string.
    function alwaysTooBig() external pure {
        require(false, "counter: too big");
    }

    function get() external view returns (uint256) {
        return count;
    }

    /// Reverts with the custom error Unauthorized(msg.sender) unless called by the owner.
    function restricted() external view returns (bool) {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        return true;
    }

    /// 100 / d: Panic(0x12) when d is zero.
    function divide(uint256 d) external pure returns (uint256) {
        return 100 / d;
    }

    /// Panic(0x01).
    function failAssert() external pure {
        assert(false);
    }

    /// Accepts ether and logs it.
    function deposit() external payable {
        emit Deposited(msg.sender, msg.value);
    }
}
