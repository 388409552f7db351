// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IApplyForSeat {
    function applyForSeat(uint8 tier, bytes32 d, bytes32 r, bytes32 m, bytes32 form) external payable returns (uint256);
}

interface IClaim {
    function claim() external;
}

/// ReentrantClaimer holds a seat and, when the RevenuePool pays it, tries to claim again from its
/// receive(). The inner call's revert data is kept for the test to read.
contract ReentrantClaimer {
    address public immutable pool;
    address public immutable dao;
    bool public reentered;
    bytes public innerError;
    uint256 public received;

    constructor(address pool_, address dao_) {
        pool = pool_;
        dao = dao_;
    }

    function applyForSeat(uint8 tier, bytes32 d, bytes32 r, bytes32 m, bytes32 form) external payable {
        IApplyForSeat(dao).applyForSeat{value: msg.value}(tier, d, r, m, form);
    }

    function claim() external {
        IClaim(pool).claim();
    }

    receive() external payable {
        received += msg.value;
        if (msg.sender == pool && !reentered) {
            reentered = true;
            try IClaim(pool).claim() {} catch (bytes memory err) {
                innerError = err;
            }
        }
    }
}

/// ForceSend pushes its value to `target` by selfdestruct: no call, no receive(), no event.
contract ForceSend {
    constructor(address payable target) payable {
        selfdestruct(target);
    }
}
