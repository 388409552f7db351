// SPDX-License-Identifier: LGPL-3.0-only
pragma solidity >=0.7.0 <0.9.0;

// The Safe{Wallet} 1.4.1 contracts the DAO uses as its multisigs (Ops, Treasury, Shariah board),
// compiled from @safe-global/safe-contracts 1.4.1 unchanged: the SafeL2 singleton (emits
// SafeMultiSigTransaction for every execution: the public record), the proxy each Safe is, the
// proxy factory, the default fallback handler (EIP-1271, simulate) and MultiSendCallOnly (batches).
import {SafeL2} from "@safe-global/safe-contracts/contracts/SafeL2.sol";
import {SafeProxy} from "@safe-global/safe-contracts/contracts/proxies/SafeProxy.sol";
import {SafeProxyFactory} from "@safe-global/safe-contracts/contracts/proxies/SafeProxyFactory.sol";
import {CompatibilityFallbackHandler} from
    "@safe-global/safe-contracts/contracts/handler/CompatibilityFallbackHandler.sol";
import {MultiSendCallOnly} from "@safe-global/safe-contracts/contracts/libraries/MultiSendCallOnly.sol";
