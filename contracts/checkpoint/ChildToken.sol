// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// ChildToken - an ERC-20 on the child chain (ours) that is withdrawn to the base chain by burning
/// it: `withdraw(amount)` burns from the caller, which emits Transfer(caller, 0, amount), the log
/// the ExitVault pays against once the block is checkpointed. Its supply is seeded at deployment
/// (the bridged base-chain tokens are locked in the vault).
contract ChildToken is ERC20 {
    /// `supply` tokens (smallest units) go to `holder`.
    constructor(string memory name_, string memory symbol_, address holder, uint256 supply) ERC20(name_, symbol_) {
        _mint(holder, supply);
    }

    /// withdraw burns `amount` of the caller's tokens, to be exited on the base chain.
    function withdraw(uint256 amount) external {
        _burn(msg.sender, amount);
    }
}
