// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// BaseToken - a plain ERC-20 for the base chain (tests, local networks): the token an ExitVault
/// pays out. The whole supply goes to the deployer, who funds the vault with it.
contract BaseToken is ERC20 {
    /// `supply` tokens (smallest units) go to the deployer.
    constructor(string memory name_, string memory symbol_, uint256 supply) ERC20(name_, symbol_) {
        _mint(msg.sender, supply);
    }
}
