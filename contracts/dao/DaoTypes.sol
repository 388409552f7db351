// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// KYC category of an attested account (spec: government or religious institutions may be given top
/// rank within their tier).
enum KycCategory {
    None,
    Individual,
    Company,
    Government,
    Religious
}

/// Seats - the fixed seat table of the Validator DAO (spec "DAO tiers"):
///
///   tier  seat ids   seats  votes/seat  tier votes  revenue share
///   I     1 - 10        10          50         500            50%
///   II    11 - 50       40          10         400            40%
///   III   51 - 150     100           1         100            10%
///
/// 150 seats, 1000 votes. There is no seat 0 and no seat 151. Tiers are numbered 1, 2, 3.
library Seats {
    /// Seat id outside 1..150.
    error InvalidSeat(uint256 seat);
    /// Tier outside 1..3.
    error InvalidTier(uint256 tier);

    uint256 internal constant TOTAL_SEATS = 150;
    uint256 internal constant TOTAL_VOTES = 1000;
    uint256 internal constant TIERS = 3;
    /// Basis points of a whole (revenue shares are in bps).
    uint256 internal constant BPS = 10_000;

    function tierOf(uint256 seat) internal pure returns (uint8) {
        if (seat >= 1 && seat <= 10) return 1;
        if (seat >= 11 && seat <= 50) return 2;
        if (seat >= 51 && seat <= 150) return 3;
        revert InvalidSeat(seat);
    }

    function checkTier(uint256 tier) internal pure {
        if (tier < 1 || tier > 3) revert InvalidTier(tier);
    }

    /// Votes of one seat of `tier`: 50 / 10 / 1.
    function votesPerSeat(uint256 tier) internal pure returns (uint256) {
        checkTier(tier);
        return tier == 1 ? 50 : tier == 2 ? 10 : 1;
    }

    /// Seats of `tier`: 10 / 40 / 100.
    function capacity(uint256 tier) internal pure returns (uint256) {
        checkTier(tier);
        return tier == 1 ? 10 : tier == 2 ? 40 : 100;
    }

    /// Lowest seat id of `tier`: 1 / 11 / 51.
    function firstSeat(uint256 tier) internal pure returns (uint256) {
        checkTier(tier);
        return tier == 1 ? 1 : tier == 2 ? 11 : 51;
    }

    /// Revenue share of `tier` in basis points: 5000 / 4000 / 1000 (fixed up front, never changed).
    function revenueShareBps(uint256 tier) internal pure returns (uint256) {
        checkTier(tier);
        return tier == 1 ? 5000 : tier == 2 ? 4000 : 1000;
    }
}

/// Remedies a dispute decision may impose on a seat (bit flags). None of them touches locked coins.
/// While any remedy is in force the seat cannot be listed, sold or have stake withdrawn, so held
/// rewards and suspended votes stay with the holder they concern.
library Remedies {
    /// Only that: no listing, sale or stake withdrawal.
    uint8 internal constant FREEZE_SEAT = 1;
    /// The seat's votes move to nobody until lifted.
    uint8 internal constant SUSPEND_VOTES = 2;
    /// Revenue credited to the seat is held, not paid, until released or forfeited.
    uint8 internal constant HOLD_REWARDS = 4;
    /// An open listing of the seat is cancelled (one-shot).
    uint8 internal constant CANCEL_LISTING = 8;
    uint8 internal constant ALL = 15;
}

interface IKycRegistry {
    function isValid(address account) external view returns (bool);
    function categoryOf(address account) external view returns (KycCategory);
    function identityOf(address account) external view returns (bytes32);
}

interface IValidatorNFT {
    function mint(address to, uint256 seat) external;
    function daoTransfer(address from, address to, uint256 seat) external;
    function daoMoveKeepingLock(address from, address to, uint256 seat) external;
    function setSuspended(uint256 seat, bool suspended) external;
    function ownerOf(uint256 seat) external view returns (address);
    function balanceOf(address holder) external view returns (uint256);
    function exists(uint256 seat) external view returns (bool);
    function unlocksAt(uint256 seat) external view returns (uint64);
    function heldSince(uint256 seat) external view returns (uint64);
    function isSuspended(uint256 seat) external view returns (bool);
    function seatsOf(address holder) external view returns (uint256[] memory);
    function getVotes(address account) external view returns (uint256);
    function totalVotes() external view returns (uint256);
}

interface IValidatorDAO {
    function stakeOf(uint256 seat) external view returns (uint256);
    function getPastStake(address account, uint256 timepoint) external view returns (uint256);
    function setRemedies(uint256 seat, uint8 remedies, bool releaseHeldToHolder) external;
    function remediesOf(uint256 seat) external view returns (uint8);
}

interface IRevenuePool {
    function noteStake(uint256 seat, uint256 stake, bool reseated) external;
    function setRewardHold(uint256 seat, bool held, bool releaseToHolder) external;
}
