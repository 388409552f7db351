// SPDX-License-Identifier: MIT
// Contracts the benchmark seeds into every node (compiled for Shanghai: ganache 7.9's newest fork).
pragma solidity ^0.8.20;

/// A plain ERC-20 with a batch transfer, so one transaction writes a dense run of Transfer logs.
contract BenchToken {
    string public constant name = "Bench Token";
    string public constant symbol = "BENCH";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint256 supply) {
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    /// One Transfer per recipient, `value` plus the recipient's position (so amounts differ).
    function transferMany(address[] calldata to, uint256 value) external {
        for (uint256 i = 0; i < to.length; i++) _move(msg.sender, to[i], value + i);
    }

    function _move(address from, address to, uint256 value) private {
        uint256 have = balanceOf[from];
        require(have >= value, "balance");
        unchecked {
            balanceOf[from] = have - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

/// Splits msg.value evenly over the recipients (funds the write-path senders in a few transactions).
contract Disperse {
    function disperse(address payable[] calldata to) external payable {
        uint256 each = msg.value / to.length;
        for (uint256 i = 0; i < to.length; i++) to[i].transfer(each);
    }
}
