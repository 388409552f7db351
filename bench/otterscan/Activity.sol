// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// The chain activity bench/otterscan-check.ts shows in Otterscan: an ERC-20 token, a router that calls
/// it (a contract calling another, forwarding value), creates contracts with CREATE and CREATE2 (an
/// internal creator), and a transfer that reverts with a reason from inside a nested call.
contract CheckToken {
    string public constant name = "Otter Check Token";
    string public constant symbol = "OTC";
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
        require(balanceOf[msg.sender] >= value, "CheckToken: balance too low");
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

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        require(allowance[from][msg.sender] >= value, "CheckToken: allowance too low");
        require(balanceOf[from] >= value, "CheckToken: balance too low");
        allowance[from][msg.sender] -= value;
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
        return true;
    }
}

/// A contract a Router creates; it can send its balance away and self-destruct.
contract Child {
    address public immutable parent;

    constructor() payable {
        parent = msg.sender;
    }

    function destroy(address payable to) external {
        selfdestruct(to);
    }
}

contract Router {
    event Routed(address indexed token, address indexed to, uint256 amount, uint256 value);
    event Created(address indexed child, bool create2);

    /// route pulls `amount` of `token` from the caller to `to` (Router → token: transferFrom) and
    /// forwards the value it is paid to `to` (an internal transfer).
    function route(CheckToken token, address payable to, uint256 amount) external payable {
        require(token.transferFrom(msg.sender, to, amount), "Router: token transfer failed");
        (bool ok,) = to.call{value: msg.value}("");
        require(ok, "Router: payment failed");
        emit Routed(address(token), to, amount, msg.value);
    }

    /// spawn creates a Child with CREATE, one with CREATE2 funded with the value paid, and
    /// self-destructs the first (in its creating transaction, so it is removed: EIP-6780).
    function spawn(bytes32 salt) external payable returns (Child a, Child b) {
        a = new Child();
        b = new Child{salt: salt, value: msg.value}();
        a.destroy(payable(msg.sender));
        emit Created(address(a), false);
        emit Created(address(b), true);
    }
}
