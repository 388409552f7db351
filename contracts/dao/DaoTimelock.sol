// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TimelockController} from "@openzeppelin/contracts/governance/TimelockController.sol";

/// DaoTimelock - OpenZeppelin's TimelockController under the DAO's name: the admin of every DAO
/// contract. Proposals passed by the DaoGovernor (the only proposer) wait `minDelay` seconds and are
/// then executed by anyone. It administers itself (no outside admin). An optional guardian (the Ops
/// Safe) may cancel a queued operation, never propose or execute one.
contract DaoTimelock is TimelockController {
    constructor(uint256 minDelay, address[] memory proposers, address[] memory executors, address guardian)
        TimelockController(minDelay, proposers, executors, address(0))
    {
        if (guardian != address(0)) _grantRole(CANCELLER_ROLE, guardian);
    }
}
