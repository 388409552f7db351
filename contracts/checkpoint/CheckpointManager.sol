// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

/// CheckpointManager - the child chain's checkpoints on the base chain (VALIDATORS.md "Checkpoints").
///
///   submitCheckpoint(data, sigs)      anyone sends it; it is accepted when
///     data = abi.encode(proposer, start, end, root, newSigners, newPowers)
///     start == getLastChildBlock() + 1          (the first checkpoint starts at block 1)
///     start <= end, end - start + 1 <= maxBlocks
///     newSigners empty (no set change) or a valid whole new set (same rules as the constructor's)
///     sigs = 65-byte r‖s‖v signatures over checkpointDigest(...), v 27 or 28, s in the lower half,
///            recovered signers strictly ascending (no duplicates), each in the current set,
///            their power * 3 > totalPower * 2
///   -> stored as header block currentHeaderBlock() + CHECKPOINT_ID_STEP (10000, 20000, ... as
///      Polygon's RootChain numbers them); NewHeaderBlock and CheckpointSigners (uptime) emitted;
///      a new set takes effect for the next checkpoint (ValidatorSetUpdated).
///
///   digest = keccak256(0x01 ‖ abi.encode(proposer, start, end, root, childChainId, block.chainid,
///                                         address(this), keccak256(abi.encode(newSigners, newPowers))))
///
/// Polygon's digest plus the domain (both chain ids and this contract, so a signature is good for
/// one checkpoint contract only) and the set change (so it cannot be swapped under the signatures).
/// The digest is signed as it is, without the EIP-191 prefix.
contract CheckpointManager {
    using SafeCast for uint256;

    /// Header block ids step by this (Polygon's RootChain: 10000, 20000, ...).
    uint256 public constant CHECKPOINT_ID_STEP = 10_000;
    /// MAX_VALIDATORS: the DAO has 150 seats; the bound keeps a set change and a fully signed
    /// checkpoint well inside a block's gas.
    uint256 public constant MAX_VALIDATORS = 256;
    /// MAX_BLOCKS_LIMIT: the largest maxBlocks accepted; a block's proof against the root then has
    /// at most 16 siblings.
    uint256 public constant MAX_BLOCKS_LIMIT = 65_536;
    /// MAX_POWER: one validator's power fits in 96 bits, beside its address in one storage word
    /// (7.9e28: 79 billion coins in wei); MAX_VALIDATORS of them sum far below overflow.
    uint256 public constant MAX_POWER = type(uint96).max;
    /// Bytes of one signature in `sigs`: r (32) ‖ s (32) ‖ v (1).
    uint256 public constant SIGNATURE_BYTES = 65;
    /// secp256k1's group order / 2: a larger s is the malleable twin of a valid signature (EIP-2).
    uint256 private constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;
    /// First byte of the signed message: marks a checkpoint vote (Polygon's prefix).
    bytes1 private constant DIGEST_PREFIX = 0x01;
    /// A set entry is signer << POWER_BITS | power.
    uint256 private constant POWER_BITS = 96;

    /// One stored checkpoint (three slots: root; start, end, createdAt; proposer).
    struct HeaderBlock {
        bytes32 root;
        uint64 start;
        uint64 end;
        uint64 createdAt;
        address proposer;
    }

    /// The child chain's chain id (part of the digest).
    uint256 public immutable childChainId;
    /// The most blocks one checkpoint may cover.
    uint256 public immutable maxBlocks;

    /// Id of the last stored checkpoint (0 before any).
    uint256 public currentHeaderBlock;
    /// Sum of the current set's powers.
    uint256 public totalPower;
    /// The current set, one word per validator: signer << POWER_BITS | power, strictly ascending
    /// (so ascending by signer). Signatures come in the same order, so they are checked by one walk
    /// along it, and a set change rewrites one word per validator.
    uint256[] private _set;
    mapping(uint256 headerBlockId => HeaderBlock) private _headerBlocks;

    event NewHeaderBlock(
        address indexed proposer,
        uint256 indexed headerBlockId,
        uint256 indexed reward,
        uint256 start,
        uint256 end,
        bytes32 root
    );
    /// Who signed checkpoint `headerBlockId`, ascending (uptime is read from these).
    event CheckpointSigners(uint256 indexed headerBlockId, address[] signers);
    /// The set that signs from the checkpoint after `headerBlockId` on (0: the constructor's).
    event ValidatorSetUpdated(uint256 indexed headerBlockId, address[] signers, uint256[] powers);

    /// childChainId is 0.
    error BadChildChainId();
    /// maxBlocks is 0 or above MAX_BLOCKS_LIMIT.
    error BadMaxBlocks(uint256 maxBlocks, uint256 limit);
    /// A validator set breaks a rule: `reason` says which.
    error BadValidatorSet(string reason);
    /// The checkpoint does not start right after the last one.
    error NotContinuous(uint256 expectedStart, uint256 start);
    /// end < start.
    error EmptyRange(uint256 start, uint256 end);
    /// The range covers more than maxBlocks blocks.
    error RangeTooLong(uint256 blocks, uint256 maxBlocks);
    /// sigs is not a whole number of 65-byte signatures.
    error BadSignaturesLength(uint256 length);
    /// Signature `index` has a v other than 27 or 28.
    error BadSignatureV(uint256 index, uint8 v);
    /// Signature `index` has s in the upper half of the curve order.
    error HighS(uint256 index);
    /// Signature `index` recovers to no address.
    error InvalidSignature(uint256 index);
    /// The recovered signers are not strictly ascending (`signer` after `previous`): unsorted or repeated.
    error SignaturesNotAscending(address previous, address signer);
    /// A signature recovers to an address outside the current set.
    error UnknownSigner(address signer);
    /// The signers hold `signed` of `total` power, not more than two thirds.
    error InsufficientPower(uint256 signed, uint256 total);

    /// The set of `signers` (strictly ascending, non-zero) with `powers` (> 0) signs the first checkpoint.
    constructor(uint256 childChainId_, uint256 maxBlocks_, address[] memory signers_, uint256[] memory powers_) {
        if (childChainId_ == 0) revert BadChildChainId();
        if (maxBlocks_ == 0 || maxBlocks_ > MAX_BLOCKS_LIMIT) revert BadMaxBlocks(maxBlocks_, MAX_BLOCKS_LIMIT);
        childChainId = childChainId_;
        maxBlocks = maxBlocks_;
        setValidators(signers_, powers_, checkValidatorSet(signers_, powers_));
        emit ValidatorSetUpdated(0, signers_, powers_);
    }

    /// submitCheckpoint stores the checkpoint `data` when `sigs` carry more than two thirds of the
    /// current set's power over its digest (the rules are in the contract's description).
    function submitCheckpoint(bytes calldata data, bytes calldata sigs) external {
        (
            address proposer,
            uint256 start,
            uint256 end,
            bytes32 root,
            address[] memory newSigners,
            uint256[] memory newPowers
        ) = abi.decode(data, (address, uint256, uint256, bytes32, address[], uint256[]));
        uint256 expectedStart = getLastChildBlock() + 1;
        if (start != expectedStart) revert NotContinuous(expectedStart, start);
        if (end < start) revert EmptyRange(start, end);
        if (end - start + 1 > maxBlocks) revert RangeTooLong(end - start + 1, maxBlocks);
        bool setChange = newSigners.length != 0 || newPowers.length != 0;
        uint256 newTotal = setChange ? checkValidatorSet(newSigners, newPowers) : 0;

        address[] memory signedBy =
            verifySignatures(checkpointDigest(proposer, start, end, root, newSigners, newPowers), sigs);

        uint256 id = currentHeaderBlock + CHECKPOINT_ID_STEP;
        _headerBlocks[id] = HeaderBlock({
            root: root,
            start: start.toUint64(),
            end: end.toUint64(),
            createdAt: block.timestamp.toUint64(),
            proposer: proposer
        });
        currentHeaderBlock = id;
        emit NewHeaderBlock(proposer, id, 0, start, end, root);
        emit CheckpointSigners(id, signedBy);
        if (setChange) {
            setValidators(newSigners, newPowers, newTotal);
            emit ValidatorSetUpdated(id, newSigners, newPowers);
        }
    }

    /// checkpointDigest returns the 32 bytes the validators sign for this checkpoint on this contract.
    function checkpointDigest(
        address proposer,
        uint256 start,
        uint256 end,
        bytes32 root,
        address[] memory newSigners,
        uint256[] memory newPowers
    ) public view returns (bytes32) {
        return keccak256(
            abi.encodePacked(
                DIGEST_PREFIX,
                abi.encode(
                    proposer,
                    start,
                    end,
                    root,
                    childChainId,
                    block.chainid,
                    address(this),
                    keccak256(abi.encode(newSigners, newPowers))
                )
            )
        );
    }

    /// headerBlocks returns checkpoint `id` (all zero when there is none), in RootChain's field order.
    function headerBlocks(uint256 id)
        external
        view
        returns (bytes32 root, uint256 start, uint256 end, uint256 createdAt, address proposer)
    {
        HeaderBlock storage h = _headerBlocks[id];
        return (h.root, h.start, h.end, h.createdAt, h.proposer);
    }

    /// getLastChildBlock returns the last block of the last checkpoint (0 before any: block 0, the
    /// genesis, is never checkpointed).
    function getLastChildBlock() public view returns (uint256) {
        return _headerBlocks[currentHeaderBlock].end;
    }

    /// signers returns the current set's signers, ascending.
    function signers() external view returns (address[] memory out) {
        uint256 n = _set.length;
        out = new address[](n);
        for (uint256 i = 0; i < n; ++i) {
            out[i] = address(uint160(_set[i] >> POWER_BITS));
        }
    }

    /// powerOf returns `signer`'s power in the current set (0: not in it).
    function powerOf(address signer) external view returns (uint256) {
        uint256 low = 0;
        uint256 high = _set.length;
        while (low < high) {
            uint256 mid = (low + high) / 2;
            uint256 entry = _set[mid];
            address at = address(uint160(entry >> POWER_BITS));
            if (at == signer) return entry & MAX_POWER;
            if (at < signer) low = mid + 1;
            else high = mid;
        }
        return 0;
    }

    /// verifySignatures checks `sigs` over `digest` and returns the signers in order.
    function verifySignatures(bytes32 digest, bytes calldata sigs) private view returns (address[] memory signedBy) {
        if (sigs.length % SIGNATURE_BYTES != 0) revert BadSignaturesLength(sigs.length);
        uint256 count = sigs.length / SIGNATURE_BYTES;
        signedBy = new address[](count);
        uint256 setSize = _set.length;
        uint256 setBase;
        assembly ("memory-safe") {
            mstore(0x00, _set.slot)
            setBase := keccak256(0x00, 0x20)
        }
        uint256 next = 0; // the set's next unread entry
        uint256 signed = 0;
        address previous = address(0);
        for (uint256 i = 0; i < count; ++i) {
            address signer = recoverAt(digest, sigs, i);
            if (signer <= previous) revert SignaturesNotAscending(previous, signer);
            // walk the set up to the signer: entries passed over belong to validators who did not sign
            uint256 entry = 0;
            while (next < setSize) {
                assembly ("memory-safe") {
                    entry := sload(add(setBase, next))
                }
                ++next;
                if (address(uint160(entry >> POWER_BITS)) >= signer) break;
            }
            if (address(uint160(entry >> POWER_BITS)) != signer) revert UnknownSigner(signer);
            signed += entry & MAX_POWER;
            signedBy[i] = signer;
            previous = signer;
        }
        uint256 total = totalPower;
        if (signed * 3 <= total * 2) revert InsufficientPower(signed, total);
    }

    /// recoverAt returns the signer of signature `i` of `sigs` over `digest` (v 27 or 28, low s).
    function recoverAt(bytes32 digest, bytes calldata sigs, uint256 i) private pure returns (address signer) {
        uint256 at = i * SIGNATURE_BYTES;
        bytes32 r = bytes32(sigs[at:at + 32]);
        bytes32 s = bytes32(sigs[at + 32:at + 64]);
        uint8 v = uint8(sigs[at + 64]);
        if (v != 27 && v != 28) revert BadSignatureV(i, v);
        if (uint256(s) > HALF_CURVE_ORDER) revert HighS(i);
        signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert InvalidSignature(i);
    }

    /// checkValidatorSet enforces the set rules and returns the total power.
    function checkValidatorSet(address[] memory signers_, uint256[] memory powers_)
        private
        pure
        returns (uint256 total)
    {
        uint256 n = signers_.length;
        if (n == 0) revert BadValidatorSet("empty");
        if (n != powers_.length) revert BadValidatorSet("signers and powers differ in length");
        if (n > MAX_VALIDATORS) revert BadValidatorSet("more than MAX_VALIDATORS signers");
        address previous = address(0);
        for (uint256 i = 0; i < n; ++i) {
            address signer = signers_[i];
            if (signer == address(0)) revert BadValidatorSet("zero signer");
            if (signer <= previous) revert BadValidatorSet("signers not strictly ascending");
            if (powers_[i] == 0) revert BadValidatorSet("zero power");
            if (powers_[i] > MAX_POWER) revert BadValidatorSet("power above MAX_POWER");
            total += powers_[i];
            previous = signer;
        }
    }

    /// setValidators makes (`signers_`, `powers_`) the current set (checked by checkValidatorSet).
    function setValidators(address[] memory signers_, uint256[] memory powers_, uint256 total) private {
        uint256 n = signers_.length;
        uint256 old = _set.length;
        for (uint256 i = 0; i < n; ++i) {
            uint256 entry = uint256(uint160(signers_[i])) << POWER_BITS | powers_[i];
            if (i < old) _set[i] = entry;
            else _set.push(entry);
        }
        for (uint256 i = n; i < old; ++i) {
            _set.pop();
        }
        totalPower = total;
    }
}
