// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// BlockMerkleProof - the checkpoint root over a range of block hashes (VALIDATORS.md "Root").
///
///   leaves = the block hashes of [start, end] in order, padded with zero hashes to the next
///            power of two (a single block is its own root)
///   node   = keccak256(left ‖ right), unsorted; leaves are not hashed again
///   proof  = the sibling of each level from the leaf up, 32 bytes each, concatenated
///
/// A proof has exactly depth(end - start + 1) siblings; the bits of the leaf's index, lowest
/// first, say on which side each sibling sits (bit set: the sibling is on the left).
library BlockMerkleProof {
    /// Bytes of one sibling hash in a proof.
    uint256 internal constant HASH_BYTES = 32;

    /// depth returns the height of the tree over `leafCount` (>= 1) leaves: the smallest d with
    /// 2^d >= leafCount.
    function depth(uint256 leafCount) internal pure returns (uint256 d) {
        while ((uint256(1) << d) < leafCount) ++d;
    }

    /// rootFrom folds `leaf` at `index` with the concatenated `siblings` into the root they prove.
    function rootFrom(bytes32 leaf, uint256 index, bytes calldata siblings) internal pure returns (bytes32 node) {
        node = leaf;
        uint256 levels = siblings.length / HASH_BYTES;
        for (uint256 i = 0; i < levels; ++i) {
            bytes32 sibling = bytes32(siblings[i * HASH_BYTES:(i + 1) * HASH_BYTES]);
            node = (index >> i) & 1 == 0 ? hashPair(node, sibling) : hashPair(sibling, node);
        }
    }

    /// hashPair returns keccak256(left ‖ right).
    function hashPair(bytes32 left, bytes32 right) internal pure returns (bytes32 h) {
        assembly ("memory-safe") {
            mstore(0x00, left)
            mstore(0x20, right)
            h := keccak256(0x00, 0x40)
        }
    }
}
