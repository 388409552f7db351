// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {BlockMerkleProof} from "../../../contracts/checkpoint/lib/BlockMerkleProof.sol";
import {MerklePatriciaProof} from "../../../contracts/checkpoint/lib/MerklePatriciaProof.sol";
import {RlpReader} from "../../../contracts/checkpoint/lib/RlpReader.sol";

/// ProofHarness - the checkpoint contracts' libraries behind external functions, for their tests
/// (test/checkpoint/libraries.test.ts). Not deployed anywhere else.
contract ProofHarness {
    using RlpReader for bytes;

    /// mptGet: the value at `key` in the trie `root`; `proofList` is the RLP list of the proof nodes.
    function mptGet(bytes32 root, bytes calldata key, bytes calldata proofList) external pure returns (bytes memory) {
        return MerklePatriciaProof.get(root, key, proofList.listPayload());
    }

    /// listLength: how many items the RLP list `item` holds.
    function listLength(bytes calldata item) external pure returns (uint256 count) {
        bytes calldata rest = item.listPayload();
        while (rest.length != 0) {
            (, rest) = rest.next();
            ++count;
        }
    }

    /// stringOf: the bytes of the RLP string `item`.
    function stringOf(bytes calldata item) external pure returns (bytes memory) {
        return item.stringPayload();
    }

    /// uintOf: the RLP integer `item`.
    function uintOf(bytes calldata item) external pure returns (uint256) {
        return item.toUint();
    }

    /// depthOf: the height of the checkpoint tree over `leafCount` leaves.
    function depthOf(uint256 leafCount) external pure returns (uint256) {
        return BlockMerkleProof.depth(leafCount);
    }

    /// rootOf: the root `siblings` prove for `leaf` at `index`.
    function rootOf(bytes32 leaf, uint256 index, bytes calldata siblings) external pure returns (bytes32) {
        return BlockMerkleProof.rootFrom(leaf, index, siblings);
    }
}
