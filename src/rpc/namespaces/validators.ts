/**
 * The validators namespace (issue 19; served when `validators` is in `[jsonrpc] api`): the
 * validator layer's spans and validators as ibex keeps them (VALIDATORS.md, "Interface"; the
 * checkpoint methods come with the base-chain half of the layer).
 *
 *   validators_getSpan(id)          span `id`: range, committee, reference block, consent; null while
 *                                   the block that would carry its record is not in the chain
 *   validators_getCurrentSpan()     the span of the block after the head (its committee decides now)
 *   validators_getValidators(block?) the DAO's validator set at the block: seat, holder, signer,
 *                                   power (locked stake, wei) and the member's power in the committee
 *                                   deciding the block after it (0 = not in it)
 *
 * Span JSON (quantities as hex, addresses lowercase):
 *   { id, startBlock, endBlock, committee: [{signer, power}],
 *     switched        true when the block before the span carried a record (else the committee carried on),
 *     recordBlock     the block carrying the record (the span's start − 1), null for span 0,
 *     referenceBlock  {number, hash} of R = the first block of the span before (the draw's seed and
 *                     state), null for span 0 or while R is not in the chain,
 *     consent         the signers whose consent signatures the record carries (ascending), null when
 *                     no record }
 * With spans off every span method answers -32000 `spans are off on this node ([ibft] span_blocks = 0)`;
 * validators_getValidators reads the DAO's set as it is (committee: the header's validators).
 *
 * Block proofs and exit payloads (issue 20; src/validators/checkpoint), against the checkpoints the
 * checkpoint service reads from the base chain (Backend.checkpoints):
 *   validators_getBlockProof(number)      {checkpoint, blockNumber, blockHash, index, proof}: the block
 *                                         hash's siblings up to the root of the committed checkpoint
 *                                         holding it (index = number − start)
 *   validators_getExitPayload(txHash, logIndex) {payload, checkpoint, blockNumber, blockHash, txIndex,
 *                                         logIndex, blockLogIndex}: the bytes for ExitVault.exit. logIndex
 *                                         is the log's index in its block, as eth_getLogs and receipts
 *                                         show it; the payload carries its index in the receipt
 * Checkpoint JSON: {id, start, end, root, proposer, signers, baseTxHash} (quantities hex, id a multiple
 * of 10,000; baseTxHash null when unknown). Without a checkpoint service both answer -32000
 * `no checkpoint service is configured on this node`; a block no committed checkpoint holds yet,
 * -32000 `block N is not checkpointed yet (…)`.
 *
 * Checkpoints themselves (validators_getCheckpoint, …CheckpointCount, …CheckpointProposal,
 * …CheckpointOfBlock) and uptime (validators_getUptime) are in checkpointStatus.ts.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { decodeExtra } from '../../chain/ibft/extra.js'
import { toQuantity } from '../../util/hex.js'
import { keccak256 } from '../../util/keccak.js'
import {
  buildExitPayload,
  NoCheckpointServiceError,
  NotCheckpointedError,
  proveBlock,
} from '../../validators/checkpoint/index.js'
import {
  recoverConsentSigner,
  referenceBlock,
  spanEnd,
  spanOf,
  spanStart,
  VALIDATOR_SIGNERS_ADDRESS,
} from '../../validators/index.js'
import { type Backend, stateBlock } from '../backend.js'
import { ServerError } from '../errors.js'
import { BlockTag, Hash, LATEST, optional, Uint64 } from '../params/index.js'
import { method, type Namespace } from '../types.js'
import { checkpointJson, checkpointMethods } from './checkpointStatus.js'
import { address, backendCaller, committeeAt, validatorSetAt } from './spanReads.js'

export const SPANS_OFF = 'spans are off on this node ([ibft] span_blocks = 0)'

/** Selector of ValidatorSigners.nft() (the seat NFT, holder of each seat). */
const NFT_CALLDATA = keccak256(new TextEncoder().encode('nft()')).slice(0, 4)
/** Selector of ERC-721 ownerOf(uint256). */
const OWNER_OF_SELECTOR = keccak256(new TextEncoder().encode('ownerOf(uint256)')).slice(0, 4)
/** Bytes of an ABI word. */
const WORD = 32

export interface SpanJson {
  id: string
  startBlock: string
  endBlock: string
  committee: { signer: string; power: string }[]
  switched: boolean
  recordBlock: string | null
  referenceBlock: { number: string; hash: string } | null
  consent: string[] | null
}

export interface ValidatorJson {
  seat: string
  holder: string | null
  signer: string
  power: string
  committeePower: string
  inCommittee: boolean
}

function spans(b: Backend): NonNullable<Backend['spans']> {
  if (b.spans === undefined) throw new ServerError(SPANS_OFF)
  return b.spans
}

function spanJson(b: Backend, id: bigint): SpanJson | null {
  const view = spans(b)
  const S = view.params.spanBlocks
  const committee = view.committeeOf(id)
  if (committee === undefined) return null
  const base: SpanJson = {
    id: toQuantity(id),
    startBlock: toQuantity(spanStart(id, S)),
    endBlock: toQuantity(spanEnd(id, S)),
    committee: committee.map((m) => ({ signer: address(m.signer), power: toQuantity(m.power) })),
    switched: false,
    recordBlock: null,
    referenceBlock: null,
    consent: null,
  }
  if (id === 0n) return base
  const carrier = spanEnd(id - 1n, S)
  base.recordBlock = toQuantity(carrier)
  const ref = b.blockByNumber(referenceBlock(id, S))
  if (ref !== undefined) base.referenceBlock = { number: toQuantity(ref.header.number), hash: bytesToHex(ref.hash) }
  const block = b.blockByNumber(carrier)
  const record = block === undefined ? undefined : decodeExtra(block.header.extraData).span
  if (record === undefined) return base
  base.switched = true
  const proposal = { chainId: b.chainId, ...record }
  base.consent = record.signatures.map((sig) => address(recoverConsentSigner(proposal, sig))).sort()
  return base
}

/** The seat NFT's address, read from ValidatorSigners.nft() at `blockHash`; undefined when it cannot be read. */
async function seatNft(b: Backend, blockHash: Uint8Array): Promise<Uint8Array | undefined> {
  try {
    const data = await backendCaller(b).callAt(blockHash, VALIDATOR_SIGNERS_ADDRESS, NFT_CALLDATA)
    return data.length === WORD ? data.slice(WORD - 20) : undefined
  } catch {
    return undefined
  }
}

async function holderOf(b: Backend, blockHash: Uint8Array, nft: Uint8Array, seat: bigint): Promise<string | null> {
  const data = new Uint8Array(4 + WORD)
  data.set(OWNER_OF_SELECTOR, 0)
  data.set(hexToBytes(`0x${seat.toString(16).padStart(WORD * 2, '0')}`), 4)
  try {
    const out = await backendCaller(b).callAt(blockHash, nft, data)
    return out.length === WORD ? address(out.slice(WORD - 20)) : null
  } catch {
    return null
  }
}

async function validatorsAt(b: Backend, ref: Parameters<typeof stateBlock>[1]): Promise<ValidatorJson[]> {
  const block = stateBlock(b, ref)
  const set = await validatorSetAt(b, block)
  const committee = committeeAt(b, block.header.number + 1n) ?? []
  const power = new Map(committee.map((m) => [bytesToHex(m.signer), m.power]))
  const nft = set.length === 0 ? undefined : await seatNft(b, block.hash)
  return Promise.all(
    set.map(async (v) => {
      const inCommittee = power.get(bytesToHex(v.signer)) ?? 0n
      return {
        seat: toQuantity(v.seat),
        holder: nft === undefined ? null : await holderOf(b, block.hash, nft, v.seat),
        signer: address(v.signer),
        power: toQuantity(v.power),
        committeePower: toQuantity(inCommittee),
        inCommittee: inCommittee > 0n,
      }
    }),
  )
}

function checkpoints(b: Backend): NonNullable<Backend['checkpoints']> {
  if (b.checkpoints === undefined) throw new NoCheckpointServiceError()
  return b.checkpoints
}

async function blockProofJson(b: Backend, number: bigint) {
  const source = checkpoints(b)
  const checkpoint = await source.checkpointOfBlock(number)
  if (checkpoint === undefined) throw new NotCheckpointedError(number, (await source.latest())?.end)
  const proved = proveBlock(b, checkpoint, number)
  return {
    checkpoint: checkpointJson(checkpoint),
    blockNumber: toQuantity(number),
    blockHash: bytesToHex(proved.blockHash),
    index: toQuantity(proved.index),
    proof: bytesToHex(proved.proof),
  }
}

async function exitPayloadJson(b: Backend, txHash: Uint8Array, logIndex: bigint) {
  const out = await buildExitPayload(b, checkpoints(b), { txHash, logIndex, scope: 'block' })
  return {
    payload: bytesToHex(out.payload),
    checkpoint: checkpointJson(out.checkpoint),
    blockNumber: toQuantity(out.blockNumber),
    blockHash: bytesToHex(out.blockHash),
    txIndex: toQuantity(out.txIndex),
    logIndex: toQuantity(out.logIndex),
    blockLogIndex: toQuantity(out.blockLogIndex),
  }
}

export const validatorsNamespace: Namespace<Backend> = {
  name: 'validators',
  methods: {
    validators_getSpan: method([Uint64], (b, [id]) => spanJson(b, id)),
    validators_getCurrentSpan: method([], (b) =>
      spanJson(b, spanOf(b.head().header.number + 1n, spans(b).params.spanBlocks)),
    ),
    validators_getValidators: method([optional(BlockTag, LATEST)], (b, [ref]) => validatorsAt(b, ref)),
    validators_getBlockProof: method([Uint64], (b, [number]) => blockProofJson(b, number)),
    validators_getExitPayload: method([Hash, Uint64], (b, [txHash, logIndex]) => exitPayloadJson(b, txHash, logIndex)),
    // checkpoints, their proposal and uptime (checkpointReads.ts)
    ...checkpointMethods,
  },
}
