// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {ERC721Enumerable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Enumerable.sol";
import {Votes} from "@openzeppelin/contracts/governance/utils/Votes.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Seats} from "./DaoTypes.sol";

/// ValidatorNFT - the 150 validator seats (spec: "membership is held by a validator NFT minted only
/// for the 150 DAO validators"; "at most 2 validator NFTs held at one time"; "transfer eligible only
/// after a 5-year period").
///
/// - Seat ids 1-10 are Tier I (50 votes), 11-50 Tier II (10), 51-150 Tier III (1): the tier is the
///   id range, so it is fixed at mint and never changes, whatever the holder's stake later is.
/// - Votes (ERC-5805) weigh each seat by its tier: all 150 seated -> total votes 1000. No
///   delegation: every holder votes for itself (`delegates(a) == a`); delegate() reverts.
/// - Only the ValidatorDAO mints and moves seats (resale with first refusal, KYC-checked buyer);
///   transferFrom / approve / setApprovalForAll revert. A seat is sold only `lockPeriod` seconds after
///   its KYC identity received it (1827 days in production), and no address ever holds more than 2
///   seats (the ValidatorDAO caps each KYC identity, over all its wallets, at 2 as well).
/// - A move between two wallets of one KYC identity (ValidatorDAO.moveSeat) is not a sale: it may
///   happen during the lock and keeps the lock where it was (heldSince is not restarted).
/// - A suspended seat (dispute remedy) keeps its holder but its votes move to nobody.
/// - The clock is the block timestamp (ERC-6372 mode=timestamp), so governance periods are seconds.
contract ValidatorNFT is ERC721Enumerable, Votes {
    /// MAX_SEATS_PER_HOLDER: spec "NFTs per validator: at most 2 validator NFTs held at one time".
    uint256 public constant MAX_SEATS_PER_HOLDER = 2;

    /// The ValidatorDAO: the only minter and mover of seats.
    address public immutable dao;
    /// Seconds a holder must hold a seat before it can move (production: 1827 days = 5 years).
    uint64 public immutable lockPeriod;

    error NotDao(address caller);
    /// Seats move only through the ValidatorDAO's resale (list -> first refusal -> buy).
    error TransfersOnlyThroughDao();
    error ApprovalsDisabled();
    /// Votes are not delegable: each seat holder votes itself.
    error DelegationDisabled();
    /// The seat's lock (heldSince + lockPeriod) has not passed.
    error SeatLocked(uint256 seat, uint64 unlocksAt);
    /// The receiver already holds MAX_SEATS_PER_HOLDER seats.
    error SeatLimitReached(address holder);
    error SeatsAreNeverBurned();
    error SuspensionUnchanged(uint256 seat, bool suspended);

    event SeatSuspended(uint256 indexed seat, address indexed holder, bool suspended);

    mapping(uint256 seat => uint64) private _heldSince;
    mapping(uint256 seat => bool) private _suspended;
    /// Set for the duration of daoMoveKeepingLock: _update neither checks nor restarts the lock.
    bool private transient _keepingLock;

    modifier onlyDao() {
        if (msg.sender != dao) revert NotDao(msg.sender);
        _;
    }

    constructor(address dao_, uint64 lockPeriod_) ERC721("Validator DAO Seat", "VSEAT") EIP712("ValidatorNFT", "1") {
        dao = dao_;
        lockPeriod = lockPeriod_;
    }

    // ---------------------------------------------------------------------------------------
    // DAO-only moves

    /// mint seats `seat` for `to` (the DAO picks the lowest free id of the approved tier).
    function mint(address to, uint256 seat) external onlyDao {
        Seats.tierOf(seat); // reverts InvalidSeat outside 1..150
        _mint(to, seat);
    }

    /// daoTransfer settles a resale; the lock and the 2-seat limit are checked in _update.
    function daoTransfer(address from, address to, uint256 seat) external onlyDao {
        _transfer(from, to, seat);
    }

    /// daoMoveKeepingLock moves a seat between two wallets of one KYC identity (the DAO checked the
    /// identity): votes move, the 2-seat limit of the receiving address holds, and the lock is
    /// neither checked nor restarted, so `unlocksAt` stays what it was.
    function daoMoveKeepingLock(address from, address to, uint256 seat) external onlyDao {
        _keepingLock = true;
        _transfer(from, to, seat);
        _keepingLock = false;
    }

    /// setSuspended moves the seat's votes to nobody (true) or back to its holder (false).
    function setSuspended(uint256 seat, bool suspended) external onlyDao {
        address holder = _requireOwned(seat);
        if (_suspended[seat] == suspended) revert SuspensionUnchanged(seat, suspended);
        _suspended[seat] = suspended;
        uint256 votes = votesOfSeat(seat);
        if (suspended) _transferVotingUnits(holder, address(0), votes);
        else _transferVotingUnits(address(0), holder, votes);
        emit SeatSuspended(seat, holder, suspended);
    }

    // ---------------------------------------------------------------------------------------
    // What holders cannot do

    function transferFrom(address, address, uint256) public pure override(ERC721, IERC721) {
        revert TransfersOnlyThroughDao();
    }

    function approve(address, uint256) public pure override(ERC721, IERC721) {
        revert ApprovalsDisabled();
    }

    function setApprovalForAll(address, bool) public pure override(ERC721, IERC721) {
        revert ApprovalsDisabled();
    }

    function delegate(address) public pure override {
        revert DelegationDisabled();
    }

    function delegateBySig(address, uint256, uint256, uint8, bytes32, bytes32) public pure override {
        revert DelegationDisabled();
    }

    /// Every account is its own delegate.
    function delegates(address account) public pure override returns (address) {
        return account;
    }

    // ---------------------------------------------------------------------------------------
    // Views

    function clock() public view override returns (uint48) {
        return uint48(block.timestamp);
    }

    // solhint-disable-next-line func-name-mixedcase
    function CLOCK_MODE() public pure override returns (string memory) {
        return "mode=timestamp";
    }

    function tierOf(uint256 seat) public pure returns (uint8) {
        return Seats.tierOf(seat);
    }

    /// votesOfSeat: the tier weight of `seat` (50 / 10 / 1), suspended or not.
    function votesOfSeat(uint256 seat) public pure returns (uint256) {
        return Seats.votesPerSeat(Seats.tierOf(seat));
    }

    function exists(uint256 seat) external view returns (bool) {
        return _ownerOf(seat) != address(0);
    }

    /// heldSince: when the seat's current KYC identity received it (mint or resale; a move between
    /// the identity's own wallets keeps it).
    function heldSince(uint256 seat) external view returns (uint64) {
        _requireOwned(seat);
        return _heldSince[seat];
    }

    /// unlocksAt: first timestamp at which the seat may be listed and moved.
    function unlocksAt(uint256 seat) public view returns (uint64) {
        _requireOwned(seat);
        return _heldSince[seat] + lockPeriod;
    }

    function isSuspended(uint256 seat) external view returns (bool) {
        return _suspended[seat];
    }

    /// totalVotes: the votes of all seated, unsuspended seats (1000 when all 150 are seated).
    function totalVotes() external view returns (uint256) {
        return _getTotalSupply();
    }

    function seatsOf(address holder) external view returns (uint256[] memory seats) {
        uint256 n = balanceOf(holder);
        seats = new uint256[](n);
        for (uint256 i = 0; i < n; ++i) seats[i] = tokenOfOwnerByIndex(holder, i);
    }

    // ---------------------------------------------------------------------------------------
    // Hooks

    function _update(address to, uint256 seat, address auth)
        internal
        override(ERC721Enumerable)
        returns (address from)
    {
        if (to == address(0)) revert SeatsAreNeverBurned();
        from = _ownerOf(seat);
        bool keepLock = _keepingLock;
        if (from != address(0) && !keepLock) {
            uint64 unlock = _heldSince[seat] + lockPeriod;
            if (block.timestamp < unlock) revert SeatLocked(seat, unlock);
        }
        if (balanceOf(to) >= MAX_SEATS_PER_HOLDER) revert SeatLimitReached(to);
        super._update(to, seat, auth);
        if (!keepLock) _heldSince[seat] = uint64(block.timestamp);
        if (!_suspended[seat]) _transferVotingUnits(from, to, votesOfSeat(seat));
    }

    function _getVotingUnits(address account) internal view override returns (uint256 units) {
        uint256 n = balanceOf(account);
        for (uint256 i = 0; i < n; ++i) {
            uint256 seat = tokenOfOwnerByIndex(account, i);
            if (!_suspended[seat]) units += votesOfSeat(seat);
        }
    }

    function _increaseBalance(address account, uint128 amount) internal override(ERC721Enumerable) {
        super._increaseBalance(account, amount);
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC721Enumerable) returns (bool) {
        return super.supportsInterface(interfaceId);
    }
}
