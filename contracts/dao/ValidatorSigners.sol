// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IValidatorDAO, IValidatorNFT} from "./DaoTypes.sol";

/// The NFT's ERC721Enumerable views the set walks (every minted seat, in mint order).
interface ISeatIndex is IValidatorNFT {
    function totalSupply() external view returns (uint256);
    function tokenByIndex(uint256 index) external view returns (uint256);
}

/// ValidatorSigners - the signer key each DAO seat's node seals blocks with (spec VALIDATORS.md: "each
/// seat names a signer address - the key its node signs IBFT seals and checkpoints with - distinct from
/// the holder's wallet. The holder (or the DAO's Timelock) sets and rotates it on chain").
///
///   setSigner(seat, signer)   by the seat's holder (ValidatorNFT.ownerOf) or the DaoTimelock
///     signer != 0; a signer names at most one seat (SignerInUse); the seat's previous signer is freed
///   validatorSet()            the validator layer's input: every minted seat that is not suspended,
///                             names a signer and has locked stake > 0, with power = its stake,
///                             in ascending signer order
///
/// It sits beside the DAO and changes none of its rules: it only reads the NFT (holder, suspension,
/// the list of seats) and the ValidatorDAO (stake). A seat that changes hands (resale) keeps its
/// signer until the new holder names another: the NFT has no transfer hook to clear it, and a seat's
/// node keeps sealing through a sale instead of dropping out of the set (the network operator runs
/// the nodes). The new holder (or the Timelock) rotates it with one call.
contract ValidatorSigners {
    /// The seats (holder, suspension, enumeration).
    ISeatIndex public immutable nft;
    /// The locked stake of each seat (a validator's power).
    IValidatorDAO public immutable dao;
    /// The DAO's Timelock: may set any seat's signer (a passed proposal).
    address public immutable timelock;

    error ZeroAddress();
    /// The seat has not been minted (ids 1..150, seated through the ValidatorDAO).
    error NoSuchSeat(uint256 seat);
    /// Only the seat's holder or the Timelock names its signer.
    error NotHolderOrTimelock(uint256 seat, address caller);
    /// The signer is already named by `seat` (a key seals for one seat only).
    error SignerInUse(address signer, uint256 seat);

    /// `previous` is the zero address when the seat had no signer yet.
    event SignerSet(uint256 indexed seat, address indexed previous, address indexed signer);

    mapping(uint256 seat => address) private _signerOf;
    /// signer -> seat naming it (0 = none: there is no seat 0).
    mapping(address signer => uint256) private _seatOf;

    constructor(address nft_, address dao_, address timelock_) {
        if (nft_ == address(0) || dao_ == address(0) || timelock_ == address(0)) revert ZeroAddress();
        nft = ISeatIndex(nft_);
        dao = IValidatorDAO(dao_);
        timelock = timelock_;
    }

    /// setSigner names `signer` as the key `seat`'s node seals with, replacing (and freeing) the
    /// previous one. Naming the seat's current signer again is a no-op that still emits SignerSet.
    function setSigner(uint256 seat, address signer) external {
        if (!nft.exists(seat)) revert NoSuchSeat(seat);
        if (msg.sender != nft.ownerOf(seat) && msg.sender != timelock) revert NotHolderOrTimelock(seat, msg.sender);
        if (signer == address(0)) revert ZeroAddress();
        uint256 other = _seatOf[signer];
        if (other != 0 && other != seat) revert SignerInUse(signer, other);
        address previous = _signerOf[seat];
        if (previous != address(0)) delete _seatOf[previous];
        _signerOf[seat] = signer;
        _seatOf[signer] = seat;
        emit SignerSet(seat, previous, signer);
    }

    /// signerOf: the seat's signer (zero address: none named).
    function signerOf(uint256 seat) external view returns (address) {
        return _signerOf[seat];
    }

    /// seatOf: the seat naming `signer` (0: none).
    function seatOf(address signer) external view returns (uint256) {
        return _seatOf[signer];
    }

    /// validatorSet: the validators now - minted seats that are not suspended, name a signer and
    /// lock stake > 0 - as parallel arrays in strictly ascending signer order; power = the seat's
    /// locked stake in wei (ValidatorDAO.stakeOf). Seats without a signer, suspended seats and
    /// zero-stake seats are left out. At most 150 entries (the DAO's seat count).
    function validatorSet()
        external
        view
        returns (uint256[] memory seats, address[] memory signers, uint256[] memory powers)
    {
        uint256 minted = nft.totalSupply();
        seats = new uint256[](minted);
        signers = new address[](minted);
        powers = new uint256[](minted);
        uint256 n = 0;
        for (uint256 i = 0; i < minted; ++i) {
            uint256 seat = nft.tokenByIndex(i);
            address signer = _signerOf[seat];
            if (signer == address(0) || nft.isSuspended(seat)) continue;
            uint256 power = dao.stakeOf(seat);
            if (power == 0) continue;
            // insertion sort by signer (signers are unique, so the order is strict)
            uint256 j = n;
            while (j > 0 && signers[j - 1] > signer) {
                seats[j] = seats[j - 1];
                signers[j] = signers[j - 1];
                powers[j] = powers[j - 1];
                --j;
            }
            seats[j] = seat;
            signers[j] = signer;
            powers[j] = power;
            ++n;
        }
        // shrink the three arrays to the n entries kept
        assembly ("memory-safe") {
            mstore(seats, n)
            mstore(signers, n)
            mstore(powers, n)
        }
    }
}
