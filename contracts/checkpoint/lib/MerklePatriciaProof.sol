// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {RlpReader} from "./RlpReader.sol";

/// MerklePatriciaProof - reads one value out of an Ethereum Merkle-Patricia trie, given its root
/// and the nodes on the path from the root to the value (what eth_getProof and every client's
/// trie library produce).
///
///   node     = RLP list: branch [child0 .. child15, value] or short [hexPrefix(path), child|value]
///   child    = keccak256 of the child node's RLP (a 32-byte string) when that RLP is 32 bytes or
///              more, else the child node itself (inline list), or empty (no child)
///   hexPrefix: first nibble = 2*isLeaf + isOddLength, then a zero nibble when the length is even
///
/// The proof is an RLP list whose items are the nodes, each either in place (a list) or wrapped in
/// a byte string. The first proof node must hash to the root; each next one must hash to the
/// reference its parent holds for the key's next nibbles (inline children are read in place, they
/// are covered by their parent's hash; a proof node repeating one is passed over). The walk ends at a leaf whose path is the rest of the key,
/// or at a branch's value slot when the key is used up; proof nodes left over are refused.
library MerklePatriciaProof {
    using RlpReader for bytes;

    /// The proof list is empty.
    error MptEmptyProof();
    /// Proof node `nodeIndex` does not hash to the reference its parent (or the root) holds.
    error MptBadNodeHash(uint256 nodeIndex);
    /// Proof node `nodeIndex` is not a trie node (neither 2 nor 17 items, a bad path prefix, a
    /// child reference that is neither empty, nor 32 bytes, nor a list).
    error MptBadNode(uint256 nodeIndex);
    /// The trie holds no value at the key (its path leaves the proof's nodes, or ends in an empty slot).
    error MptKeyNotFound();
    /// The proof ends before reaching the key's value.
    error MptProofTooShort();
    /// Nodes follow the one that holds the value.
    error MptProofTooLong();
    /// The key is longer than MAX_KEY_BYTES.
    error MptKeyTooLong(uint256 length);

    /// MAX_KEY_BYTES: trie keys are at most a hash (32 bytes; receipts and transactions use RLP(index)).
    uint256 internal constant MAX_KEY_BYTES = 32;
    /// Items in a leaf or extension node: the hex-prefixed path and the value or child.
    uint256 private constant SHORT_ITEMS = 2;
    /// Items in a branch node: 16 children and a value.
    uint256 private constant BRANCH_ITEMS = 17;
    /// Hex-prefix flag bit of a leaf (the other short node is an extension).
    uint256 private constant LEAF_FLAG = 2;
    /// Hex-prefix flag bit of an odd-length path.
    uint256 private constant ODD_FLAG = 1;

    /// get returns the value stored under `key` in the trie whose root hash is `root`; `proof` is the
    /// payload of the RLP list of proof nodes, root first. Reverts (with the reason) when the proof
    /// does not show a value there.
    function get(bytes32 root, bytes calldata key, bytes calldata proof)
        internal
        pure
        returns (bytes calldata value)
    {
        if (key.length > MAX_KEY_BYTES) revert MptKeyTooLong(key.length);
        if (proof.length == 0) revert MptEmptyProof();
        (bytes calldata node, bytes calldata rest) = proof.next();
        node = unwrap(node);
        if (keccak256(node) != root) revert MptBadNodeHash(0);
        return walk(node, rest, toNibbles(key));
    }

    /// walk follows the key's `nibbles` from the root node `node`; `rest` holds the proof nodes after it.
    function walk(bytes calldata node, bytes calldata rest, bytes memory nibbles)
        private
        pure
        returns (bytes calldata value)
    {
        value = rest[:0];
        uint256 nodeIndex = 0;
        uint256 at = 0; // nibbles of the key consumed
        for (;;) {
            bool done;
            (done, value, at) = step(node, nodeIndex, nibbles, at);
            if (done) {
                if (rest.length != 0) revert MptProofTooLong();
                return value;
            }
            if (value.isList()) {
                node = value; // inline child: already covered by its parent's hash
                bool copied;
                (rest, copied) = skipCopy(rest, value);
                if (copied) ++nodeIndex;
                continue;
            }
            ++nodeIndex;
            (node, rest) = hashedChild(value, rest, nodeIndex);
        }
    }

    /// skipCopy drops the next proof node when it repeats the inline node `inlineNode`: some provers
    /// (the ethereumjs trie among them) list inline nodes as proof nodes of their own, geth does not.
    function skipCopy(bytes calldata rest, bytes calldata inlineNode)
        private
        pure
        returns (bytes calldata remaining, bool copied)
    {
        if (rest.length == 0) return (rest, false);
        (bytes calldata next, bytes calldata afterNext) = rest.next();
        if (keccak256(unwrap(next)) != keccak256(inlineNode)) return (rest, false);
        return (afterNext, true);
    }

    /// hashedChild takes the next proof node off `rest` and checks it is the one the reference
    /// `child` (a 32-byte string) names.
    function hashedChild(bytes calldata child, bytes calldata rest, uint256 nodeIndex)
        private
        pure
        returns (bytes calldata node, bytes calldata remaining)
    {
        bytes calldata ref = child.stringPayload();
        if (ref.length == 0) revert MptKeyNotFound();
        if (ref.length != 32) revert MptBadNode(nodeIndex - 1);
        if (rest.length == 0) revert MptProofTooShort();
        (node, remaining) = rest.next();
        node = unwrap(node);
        if (keccak256(node) != bytes32(ref)) revert MptBadNodeHash(nodeIndex);
    }

    /// unwrap returns a proof node's RLP: the item itself when the node is in the list as a list,
    /// the string's contents when it is wrapped in a byte string (eth_getProof's hex strings, RLP-
    /// encoded as they come).
    function unwrap(bytes calldata item) private pure returns (bytes calldata) {
        return item.isList() ? item : item.stringPayload();
    }

    /// step reads one node at key position `at`: either the value (`done`, `next` = the value's
    /// bytes) or the reference to the child to follow (`next` = the child item) and the new position.
    function step(bytes calldata node, uint256 nodeIndex, bytes memory nibbles, uint256 at)
        private
        pure
        returns (bool done, bytes calldata next, uint256 nextAt)
    {
        bytes calldata items = node.listPayload();
        bool atValue = at == nibbles.length;
        // one pass: count the items and keep the one a branch would follow (the value slot when
        // the key is used up)
        uint256 count;
        (count, next) = scan(items, atValue ? BRANCH_ITEMS - 1 : uint8(nibbles[at]));
        if (count == SHORT_ITEMS) return shortNode(items, nodeIndex, nibbles, at);
        if (count != BRANCH_ITEMS) revert MptBadNode(nodeIndex);
        if (atValue) {
            next = next.stringPayload();
            if (next.length == 0) revert MptKeyNotFound();
            return (true, next, at);
        }
        return (false, next, at + 1);
    }

    /// scan returns how many items the list payload `items` holds, and item `want` (empty when
    /// there are not that many).
    function scan(bytes calldata items, uint256 want) private pure returns (uint256 count, bytes calldata chosen) {
        chosen = items[:0];
        bytes calldata rest = items;
        while (rest.length != 0) {
            bytes calldata item;
            (item, rest) = rest.next();
            if (count == want) chosen = item;
            ++count;
        }
    }

    /// shortNode follows a leaf or extension node [hexPrefix(path), child].
    function shortNode(bytes calldata items, uint256 nodeIndex, bytes memory nibbles, uint256 at)
        private
        pure
        returns (bool done, bytes calldata next, uint256 nextAt)
    {
        bytes calldata path;
        {
            bytes calldata encodedPath;
            (encodedPath, next) = items.next();
            path = encodedPath.stringPayload();
        }
        if (path.length == 0) revert MptBadNode(nodeIndex);
        uint256 flags = uint8(path[0]) >> 4;
        if (flags > (LEAF_FLAG | ODD_FLAG)) revert MptBadNode(nodeIndex);
        uint256 skip = flags & ODD_FLAG != 0 ? 1 : 2; // nibbles of the prefix
        if (skip == 2 && uint8(path[0]) & 0x0f != 0) revert MptBadNode(nodeIndex);
        nextAt = matchPath(path, skip, nibbles, at);
        if (flags & LEAF_FLAG != 0) {
            if (nextAt != nibbles.length) revert MptKeyNotFound();
            return (true, next.stringPayload(), nextAt);
        }
        if (nextAt == at) revert MptBadNode(nodeIndex); // an extension always has a path
        return (false, next, nextAt);
    }

    /// matchPath checks the path's nibbles (after `skip` prefix nibbles) continue the key at `at`;
    /// returns the key position after them.
    function matchPath(bytes calldata path, uint256 skip, bytes memory nibbles, uint256 at)
        private
        pure
        returns (uint256)
    {
        uint256 pathNibbles = path.length * 2 - skip;
        if (at + pathNibbles > nibbles.length) revert MptKeyNotFound();
        for (uint256 i = 0; i < pathNibbles; ++i) {
            if (nibbleAt(path, skip + i) != uint8(nibbles[at + i])) revert MptKeyNotFound();
        }
        return at + pathNibbles;
    }


    /// toNibbles splits `key` into its nibbles, high nibble of each byte first.
    function toNibbles(bytes calldata key) private pure returns (bytes memory nibbles) {
        nibbles = new bytes(key.length * 2);
        for (uint256 i = 0; i < nibbles.length; ++i) {
            nibbles[i] = bytes1(uint8(nibbleAt(key, i)));
        }
    }

    /// nibbleAt returns nibble `i` of `b` (high nibble of byte i/2 first).
    function nibbleAt(bytes calldata b, uint256 i) private pure returns (uint256) {
        uint256 byteValue = uint8(b[i >> 1]);
        return i & 1 == 0 ? byteValue >> 4 : byteValue & 0x0f;
    }
}
