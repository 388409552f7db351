// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// The explorer test's activity in one contract: an ERC-20 token (Transfer and Approval events),
/// a payable forwarder (an internal call carrying value), a transfer that reverts with a reason and a
/// call with many logs.
contract ExplorerToken {
    string public constant name = "Explorer Token";
    string public constant symbol = "EXT";
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
        require(balanceOf[msg.sender] >= value, "ExplorerToken: balance too low");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// approveMany emits `count` Approval events: a transaction with more logs than the explorer draws.
    function approveMany(uint256 count) external {
        for (uint256 i = 1; i <= count; ++i) {
            allowance[msg.sender][address(uint160(i))] = i;
            emit Approval(msg.sender, address(uint160(i)), i);
        }
    }

    /// forward sends the value it is paid on to `to`: `to` appears only in an internal call.
    function forward(address payable to) external payable {
        (bool ok,) = to.call{value: msg.value}("");
        require(ok, "ExplorerToken: forward failed");
    }
}
