// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// RlpReader - strict RLP decoding over calldata, without copying.
///
/// An *item* is a calldata slice holding exactly one encoded item (prefix and payload). A list is
/// read by taking its payload (`listPayload`) and cutting items off its front (`next`) until the
/// payload is empty. Every length is checked against the bytes present, and only the canonical
/// (shortest) encoding is accepted: a single byte below 0x80 must stand alone, long forms are only
/// for payloads of 56 bytes or more and their length has no leading zero, integers have no leading
/// zero byte. An item that should stand alone may not be followed by anything.
library RlpReader {
    /// An item claims more bytes than the input holds (or the input is empty).
    error RlpTruncated();
    /// A length or a single byte is encoded in a longer form than needed.
    error RlpNotCanonical();
    /// A list was expected and a byte string found.
    error RlpExpectedList();
    /// A byte string was expected and a list found.
    error RlpExpectedString();
    /// Bytes follow an item that should end its input.
    error RlpTrailingBytes();
    /// A byte string does not have the length its type needs (32 for a hash, 20 for an address).
    error RlpBadLength(uint256 expected, uint256 actual);
    /// An integer is longer than 32 bytes or starts with a zero byte.
    error RlpBadInteger();
    /// A list has fewer items than the index asked for.
    error RlpIndexOutOfRange(uint256 index, uint256 count);

    /// Prefix bytes at and above which an item is a byte string of 0-55 bytes (below: the byte itself).
    uint256 private constant SHORT_STRING = 0x80;
    /// Prefix bytes at and above which a byte string's length follows the prefix.
    uint256 private constant LONG_STRING = 0xb8;
    /// Prefix bytes at and above which an item is a list of 0-55 payload bytes.
    uint256 private constant SHORT_LIST = 0xc0;
    /// Prefix bytes at and above which a list's length follows the prefix.
    uint256 private constant LONG_LIST = 0xf8;
    /// The longest payload a short form describes; longer ones use the long form.
    uint256 private constant MAX_SHORT_PAYLOAD = 55;

    /// next cuts the first item off `data`: returns it whole (prefix and payload) and what follows.
    function next(bytes calldata data) internal pure returns (bytes calldata item, bytes calldata rest) {
        (, uint256 headerLength, uint256 payloadLength) = prefix(data);
        // prefix checked headerLength + payloadLength <= data.length
        assembly ("memory-safe") {
            let end := add(headerLength, payloadLength)
            item.offset := data.offset
            item.length := end
            rest.offset := add(data.offset, end)
            rest.length := sub(data.length, end)
        }
    }

    /// isList tells whether the item at the start of `data` is a list.
    function isList(bytes calldata data) internal pure returns (bool list) {
        (list,,) = prefix(data);
    }

    /// listPayload returns the concatenated items of the list `item`.
    function listPayload(bytes calldata item) internal pure returns (bytes calldata) {
        (bool list, uint256 headerLength, uint256 payloadLength) = prefix(item);
        if (!list) revert RlpExpectedList();
        if (headerLength + payloadLength != item.length) revert RlpTrailingBytes();
        return item[headerLength:];
    }

    /// stringPayload returns the bytes of the byte string `item`.
    function stringPayload(bytes calldata item) internal pure returns (bytes calldata) {
        (bool list, uint256 headerLength, uint256 payloadLength) = prefix(item);
        if (list) revert RlpExpectedString();
        if (headerLength + payloadLength != item.length) revert RlpTrailingBytes();
        return item[headerLength:];
    }

    /// toUint reads the byte string `item` as a big-endian integer of at most 32 bytes.
    function toUint(bytes calldata item) internal pure returns (uint256 value) {
        bytes calldata b = stringPayload(item);
        uint256 n = b.length;
        if (n == 0) return 0;
        if (n > 32 || b[0] == 0) revert RlpBadInteger();
        assembly ("memory-safe") {
            value := shr(sub(256, mul(8, n)), calldataload(b.offset))
        }
    }

    /// toBytes32 reads the 32-byte string `item` (a hash).
    function toBytes32(bytes calldata item) internal pure returns (bytes32 value) {
        bytes calldata b = stringPayload(item);
        if (b.length != 32) revert RlpBadLength(32, b.length);
        value = bytes32(b);
    }

    /// toAddress reads the 20-byte string `item`.
    function toAddress(bytes calldata item) internal pure returns (address value) {
        bytes calldata b = stringPayload(item);
        if (b.length != 20) revert RlpBadLength(20, b.length);
        value = address(bytes20(b));
    }

    /// itemAt returns item `index` (from 0) of the list payload `items`.
    function itemAt(bytes calldata items, uint256 index) internal pure returns (bytes calldata item) {
        bytes calldata rest = items;
        uint256 count = 0;
        while (rest.length != 0) {
            (item, rest) = next(rest);
            if (count == index) return item;
            ++count;
        }
        revert RlpIndexOutOfRange(index, count);
    }

    /// prefix decodes the prefix of the item starting `data`: whether it is a list, how many bytes
    /// the prefix takes and how many the payload. The item is checked to fit in `data`.
    function prefix(bytes calldata data) internal pure returns (bool list, uint256 headerLength, uint256 payloadLength) {
        uint256 available = data.length;
        if (available == 0) revert RlpTruncated();
        uint256 word; // the first 32 bytes (zeros past the end of calldata; only trusted within `available`)
        assembly ("memory-safe") {
            word := calldataload(data.offset)
        }
        uint256 b0 = word >> 248;
        unchecked {
            if (b0 < SHORT_STRING) return (false, 0, 1);
            if (b0 < LONG_STRING) {
                headerLength = 1;
                payloadLength = b0 - SHORT_STRING;
                // a lone byte below 0x80 is its own encoding
                if (payloadLength == 1 && available >= 2 && (word >> 240) & 0xff < SHORT_STRING) {
                    revert RlpNotCanonical();
                }
            } else if (b0 < SHORT_LIST) {
                (headerLength, payloadLength) = longLength(word, available, b0 - (LONG_STRING - 1));
            } else if (b0 < LONG_LIST) {
                list = true;
                headerLength = 1;
                payloadLength = b0 - SHORT_LIST;
            } else {
                list = true;
                (headerLength, payloadLength) = longLength(word, available, b0 - (LONG_LIST - 1));
            }
            // lengths are below 2^64, the sum cannot wrap
            if (headerLength + payloadLength > available) revert RlpTruncated();
        }
    }

    /// longLength reads the `lengthBytes`-byte (1-8) big-endian payload length after the prefix
    /// byte from `word` (the item's first 32 bytes).
    function longLength(uint256 word, uint256 available, uint256 lengthBytes)
        private
        pure
        returns (uint256 headerLength, uint256 payloadLength)
    {
        unchecked {
            headerLength = 1 + lengthBytes;
            if (available < headerLength) revert RlpTruncated();
            payloadLength = (word << 8) >> (256 - 8 * lengthBytes);
            if (payloadLength <= MAX_SHORT_PAYLOAD || (word >> 240) & 0xff == 0) revert RlpNotCanonical();
        }
    }
}
