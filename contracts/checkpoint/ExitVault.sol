// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

import {BlockMerkleProof} from "./lib/BlockMerkleProof.sol";
import {MerklePatriciaProof} from "./lib/MerklePatriciaProof.sol";
import {RlpReader} from "./lib/RlpReader.sol";

/// The part of CheckpointManager the vault reads.
interface ICheckpointHeaders {
    function headerBlocks(uint256 id)
        external
        view
        returns (bytes32 root, uint256 start, uint256 end, uint256 createdAt, address proposer);
}

/// ExitVault - pays withdrawals from the child chain against its checkpoints (VALIDATORS.md "Proof of
/// burn"). It holds base-chain tokens; a burn of the mapped child token, in a block covered by a
/// stored checkpoint, is paid out once to the burner.
///
///   exit(payload), payload = RLP [headerBlockId, blockProof, blockNumber, headerRlp, receiptRlp,
///                                 receiptProof, receiptKey, logIndex]
///     1. checkpoint headerBlockId exists; start <= blockNumber <= end
///     2. headerRlp is the header as hashed for the block hash (ibex blanks the seals); its number
///        (field 8) is blockNumber; keccak256(headerRlp) is leaf blockNumber - start of the
///        checkpoint's root (BlockMerkleProof, blockProof = the siblings from the leaf up)
///     3. receiptRlp (as stored in the trie: type byte ‖ RLP list, or an RLP list for legacy) is
///        the value at receiptKey (RLP of the transaction index) in the trie of the header's
///        receiptsRoot (field 5), proven by receiptProof (RLP list of the nodes, root first)
///     4. the receipt's status is 1; its log logIndex (counted inside this receipt) is an ERC-20
///        Transfer(owner, 0, amount) emitted by a mapped child token
///     5. exitId = keccak256(abi.encode(blockHash, receiptKey, logIndex)) not yet paid
///     -> baseToken.transfer(owner, amount), Exited
///
/// headerRlp and receiptProof may be given either as RLP lists in place or as byte strings holding
/// the RLP (Polygon's payload wraps them as bytes); receiptRlp is a byte string (a legacy receipt
/// may also be the list in place).
contract ExitVault is Ownable {
    using RlpReader for bytes;
    using SafeERC20 for IERC20;

    /// topic0 of ERC-20 Transfer(address indexed from, address indexed to, uint256 value).
    bytes32 public constant TRANSFER_TOPIC = keccak256("Transfer(address,address,uint256)");
    /// Header fields read: receiptsRoot and number (Ethereum's header order).
    uint256 private constant HEADER_RECEIPTS_ROOT = 5;
    uint256 private constant HEADER_NUMBER = 8;
    /// Topics of an ERC-20 Transfer (topic0, from, to); ERC-721's has a fourth.
    uint256 private constant TRANSFER_TOPICS = 3;
    /// Typed receipts start with their type byte (EIP-2718: 0x01-0x7f); a legacy one with a list prefix.
    uint256 private constant MAX_RECEIPT_TYPE = 0x7f;
    /// A receipt's status when the transaction succeeded (EIP-658).
    uint256 private constant STATUS_SUCCESS = 1;

    /// What an exit needs of a checkpoint.
    struct Range {
        bytes32 root;
        uint256 start;
        uint256 end;
    }

    /// The checkpoints exits are proven against.
    ICheckpointHeaders public immutable checkpointManager;
    /// child token -> the base-chain token paid for its burns.
    mapping(address childToken => address baseToken) public tokenFor;
    /// exit id -> paid.
    mapping(bytes32 exitId => bool) public processedExits;

    event TokenMapped(address indexed childToken, address indexed baseToken);
    event Exited(bytes32 indexed exitId, address indexed owner, address indexed baseToken, uint256 amount);

    /// A zero address where a contract is needed.
    error ZeroAddress();
    /// childToken is already mapped (to `baseToken`); a mapping never changes.
    error TokenAlreadyMapped(address childToken, address baseToken);
    /// The payload is not a list of the eight items.
    error BadPayload();
    /// No checkpoint is stored under `headerBlockId`.
    error UnknownCheckpoint(uint256 headerBlockId);
    /// blockNumber lies outside the checkpoint's [start, end].
    error BlockNotInCheckpoint(uint256 blockNumber, uint256 start, uint256 end);
    /// The header's number is not blockNumber.
    error HeaderNumberMismatch(uint256 headerNumber, uint256 blockNumber);
    /// blockProof has the wrong number of siblings for the checkpoint's tree (`expected` bytes).
    error BadBlockProofLength(uint256 expected, uint256 length);
    /// The header's hash and blockProof do not lead to the checkpoint's root.
    error BadBlockProof(bytes32 blockHash, bytes32 root);
    /// The receipt proven under receiptKey is not receiptRlp.
    error ReceiptMismatch();
    /// The receipt is neither a legacy list nor type byte ‖ list.
    error BadReceipt();
    /// The transaction failed (status != 1).
    error ReceiptFailed();
    /// The receipt has `count` logs; logIndex is beyond them.
    error LogIndexOutOfRange(uint256 logIndex, uint256 count);
    /// The log's emitter is not a mapped child token.
    error TokenNotMapped(address childToken);
    /// The log is not an ERC-20 Transfer (topic0, three topics, a 32-byte amount, clean addresses).
    error NotATransfer();
    /// The Transfer sends to `to`, not to the zero address: not a burn.
    error NotABurn(address to);
    /// The burn is of 0 tokens: nothing to pay.
    error ZeroAmount();
    /// This burn has been paid already.
    error ExitAlreadyProcessed(bytes32 exitId);

    /// The vault reads checkpoints from `checkpointManager_`; the deployer maps tokens.
    constructor(address checkpointManager_) Ownable(msg.sender) {
        if (checkpointManager_ == address(0)) revert ZeroAddress();
        checkpointManager = ICheckpointHeaders(checkpointManager_);
    }

    /// mapToken pays burns of `childToken` (on the child chain) in `baseToken` (here), for good.
    function mapToken(address childToken, address baseToken) external onlyOwner {
        if (childToken == address(0) || baseToken == address(0)) revert ZeroAddress();
        address existing = tokenFor[childToken];
        if (existing != address(0)) revert TokenAlreadyMapped(childToken, existing);
        tokenFor[childToken] = baseToken;
        emit TokenMapped(childToken, baseToken);
    }

    /// exit proves a burn on the child chain (the payload's layout is in the contract's description)
    /// and pays the burner once.
    function exit(bytes calldata payload) external {
        bytes calldata rest = payload.listPayload();
        bytes32 blockHash;
        bytes32 receiptsRoot;
        (blockHash, receiptsRoot, rest) = proveBlock(rest);
        bytes calldata receipt;
        bytes calldata receiptKey;
        (receipt, receiptKey, rest) = proveReceipt(receiptsRoot, rest);
        bytes calldata item;
        (item, rest) = nextField(rest);
        uint256 logIndex = item.toUint();
        if (rest.length != 0) revert BadPayload();

        (address baseToken, address owner, uint256 amount) = burnIn(receipt, logIndex);
        bytes32 exitId = keccak256(abi.encode(blockHash, receiptKey, logIndex));
        if (processedExits[exitId]) revert ExitAlreadyProcessed(exitId);
        processedExits[exitId] = true;
        IERC20(baseToken).safeTransfer(owner, amount);
        emit Exited(exitId, owner, baseToken, amount);
    }

    /// proveBlock reads headerBlockId, blockProof, blockNumber and headerRlp, checks the header is
    /// in the checkpoint, and returns its hash and receiptsRoot.
    function proveBlock(bytes calldata fields)
        private
        view
        returns (bytes32 blockHash, bytes32 receiptsRoot, bytes calldata rest)
    {
        bytes calldata item;
        (item, rest) = nextField(fields);
        uint256 headerBlockId = item.toUint();
        (item, rest) = nextField(rest);
        bytes calldata blockProof = item.stringPayload();
        (item, rest) = nextField(rest);
        uint256 blockNumber = item.toUint();
        (item, rest) = nextField(rest);
        bytes calldata header = embedded(item);

        Range memory checkpoint = checkpointRange(headerBlockId);
        if (blockNumber < checkpoint.start || blockNumber > checkpoint.end) {
            revert BlockNotInCheckpoint(blockNumber, checkpoint.start, checkpoint.end);
        }
        receiptsRoot = headerReceiptsRoot(header, blockNumber);
        blockHash = keccak256(header);
        checkBlockProof(
            blockHash, blockNumber - checkpoint.start, checkpoint.end - checkpoint.start + 1, blockProof, checkpoint.root
        );
    }

    /// checkpointRange reads checkpoint `headerBlockId` (UnknownCheckpoint when there is none).
    function checkpointRange(uint256 headerBlockId) private view returns (Range memory checkpoint) {
        uint256 createdAt;
        (checkpoint.root, checkpoint.start, checkpoint.end, createdAt,) = checkpointManager.headerBlocks(headerBlockId);
        if (createdAt == 0) revert UnknownCheckpoint(headerBlockId);
    }

    /// headerReceiptsRoot checks the header's number is `blockNumber` and returns its receiptsRoot.
    function headerReceiptsRoot(bytes calldata header, uint256 blockNumber) private pure returns (bytes32) {
        bytes calldata headerFields = header.listPayload();
        uint256 headerNumber = headerFields.itemAt(HEADER_NUMBER).toUint();
        if (headerNumber != blockNumber) revert HeaderNumberMismatch(headerNumber, blockNumber);
        return headerFields.itemAt(HEADER_RECEIPTS_ROOT).toBytes32();
    }

    /// checkBlockProof checks `blockHash` is leaf `index` of the `leafCount`-leaf tree with `root`.
    function checkBlockProof(bytes32 blockHash, uint256 index, uint256 leafCount, bytes calldata proof, bytes32 root)
        private
        pure
    {
        uint256 expectedLength = BlockMerkleProof.depth(leafCount) * BlockMerkleProof.HASH_BYTES;
        if (proof.length != expectedLength) revert BadBlockProofLength(expectedLength, proof.length);
        if (BlockMerkleProof.rootFrom(blockHash, index, proof) != root) revert BadBlockProof(blockHash, root);
    }

    /// proveReceipt reads receiptRlp, receiptProof and receiptKey and checks the receipt is the
    /// trie's value at the key; returns the receipt and the key.
    function proveReceipt(bytes32 receiptsRoot, bytes calldata fields)
        private
        pure
        returns (bytes calldata receipt, bytes calldata receiptKey, bytes calldata rest)
    {
        bytes calldata item;
        (item, rest) = nextField(fields);
        receipt = item.isList() ? item : item.stringPayload();
        bytes calldata proof;
        (item, rest) = nextField(rest);
        proof = embedded(item).listPayload();
        (item, rest) = nextField(rest);
        receiptKey = item.stringPayload();
        bytes calldata proven = MerklePatriciaProof.get(receiptsRoot, receiptKey, proof);
        if (keccak256(proven) != keccak256(receipt)) revert ReceiptMismatch();
    }

    /// burnIn checks the receipt succeeded and its log `logIndex` is a burn of a mapped child
    /// token; returns the base token to pay, the owner and the amount.
    function burnIn(bytes calldata receipt, uint256 logIndex)
        private
        view
        returns (address baseToken, address owner, uint256 amount)
    {
        return transferBurn(logAt(successfulLogs(receipt), logIndex));
    }

    /// successfulLogs checks the receipt's status is 1 and returns the payload of its logs list.
    function successfulLogs(bytes calldata receipt) private pure returns (bytes calldata logs) {
        if (receipt.length == 0) revert BadReceipt();
        bytes calldata body = receipt;
        uint8 first = uint8(receipt[0]);
        if (first <= MAX_RECEIPT_TYPE) {
            if (first == 0) revert BadReceipt();
            body = receipt[1:];
        }
        if (body.length == 0 || !body.isList()) revert BadReceipt();
        bytes calldata fields = body.listPayload();
        bytes calldata item;
        (item, fields) = nextReceiptField(fields); // status (a post-state root before Byzantium)
        if (item.isList() || item.toUint() != STATUS_SUCCESS) revert ReceiptFailed();
        (, fields) = nextReceiptField(fields); // cumulative gas used
        (, fields) = nextReceiptField(fields); // logs bloom
        (item, fields) = nextReceiptField(fields);
        if (fields.length != 0) revert BadReceipt();
        return item.listPayload();
    }

    /// logAt returns log `logIndex` of the list payload `logs`.
    function logAt(bytes calldata logs, uint256 logIndex) private pure returns (bytes calldata log) {
        bytes calldata rest = logs;
        uint256 count = 0;
        while (rest.length != 0) {
            (log, rest) = rest.next();
            if (count == logIndex) return log;
            ++count;
        }
        revert LogIndexOutOfRange(logIndex, count);
    }

    /// transferBurn reads the log [address, topics, data] as Transfer(owner, 0, amount) of a mapped token.
    function transferBurn(bytes calldata log) private view returns (address baseToken, address owner, uint256 amount) {
        bytes calldata fields = log.listPayload();
        bytes calldata item;
        (item, fields) = fields.next();
        address emitter = item.toAddress();
        baseToken = tokenFor[emitter];
        if (baseToken == address(0)) revert TokenNotMapped(emitter);
        (item, fields) = fields.next();
        bytes calldata topics = item.listPayload();
        (item, fields) = fields.next();
        bytes calldata data = item.stringPayload();
        if (fields.length != 0 || data.length != 32) revert NotATransfer();

        bytes32[TRANSFER_TOPICS] memory t;
        for (uint256 i = 0; i < TRANSFER_TOPICS; ++i) {
            if (topics.length == 0) revert NotATransfer();
            (item, topics) = topics.next();
            t[i] = item.toBytes32();
        }
        if (topics.length != 0 || t[0] != TRANSFER_TOPIC) revert NotATransfer();
        if (uint256(t[1]) >> 160 != 0 || uint256(t[2]) >> 160 != 0) revert NotATransfer();
        if (t[2] != bytes32(0)) revert NotABurn(address(uint160(uint256(t[2]))));
        owner = address(uint160(uint256(t[1])));
        amount = uint256(bytes32(data));
        if (amount == 0) revert ZeroAmount();
    }

    /// nextField cuts the next payload item off `fields` (BadPayload when there is none).
    function nextField(bytes calldata fields) private pure returns (bytes calldata item, bytes calldata rest) {
        if (fields.length == 0) revert BadPayload();
        return fields.next();
    }

    /// nextReceiptField cuts the next receipt field off `fields` (BadReceipt when there is none).
    function nextReceiptField(bytes calldata fields) private pure returns (bytes calldata item, bytes calldata rest) {
        if (fields.length == 0) revert BadReceipt();
        return fields.next();
    }

    /// embedded returns the RLP an item carries: the item itself when it is a list in place, else
    /// the byte string's contents.
    function embedded(bytes calldata item) private pure returns (bytes calldata) {
        return item.isList() ? item : item.stringPayload();
    }
}
