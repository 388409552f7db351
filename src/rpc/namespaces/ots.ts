/**
 * ots_: Otterscan's API at level 8 (as Erigon serves it, otterscan_*.go) and
 * erigon_getHeaderByNumber, which Otterscan probes at connect. Served when `ots` is in
 * `[jsonrpc] api`; `ots` brings `erigon` with it (Otterscan refuses a node without
 * erigon_getHeaderByNumber), and `erigon` alone serves only that method.
 *
 *   block pages      ots_getBlockDetails(ByHash), ots_getBlockTransactions   chain store (+ fees index)
 *   address pages    ots_searchTransactionsBefore/After                     appearance index
 *                    ots_getContractCreator, ots_hasCode                     creator index, state
 *   transaction      ots_getTransactionBySenderAndNonce                      sender+nonce index
 *                    ots_getTransactionError                                 revert index (else a trace worker)
 *                    ots_traceTransaction, ots_getInternalOperations         a trace worker re-executes
 *
 * Wire rules Otterscan relies on: block numbers, page numbers, page sizes and nonces come as plain
 * JSON integers (a hex quantity or a tag is read too); ots_getBlockTransactions counts pages from
 * the END of the block as Erigon does (page 0 = the last pageSize transactions, in block order;
 * anvil counts from the start); a search page never splits a block, so it may hold more than
 * pageSize transactions; results are newest first for both directions; search receipts carry
 * the block's `timestamp` (a JSON integer, as Erigon's). A page size above `[explorer] max_page_size` (Erigon's
 * --ots.search.max.pagesize) is refused with -32602, never read.
 */
import type { StoredReceipt } from '../../chain/receipt.js'
import { blockTransaction, type ChainBlock } from '../../chain/store.js'
import { defaultTraceOptions, type TraceOptions } from '../../exec/pool/index.js'
import { hexToBytes, toData, toQuantity } from '../../util/hex.js'
import { type Backend, resolveBlock, stateBlock } from '../backend.js'
import { GenesisNotTraceableError, InvalidParamsError, NotFoundError, ServerError } from '../errors.js'
import { formatBlock, formatHeader, type RpcObject } from '../format/block.js'
import { formatReceipt } from '../format/receipt.js'
import { formatTransaction } from '../format/transaction.js'
import { Address, type BlockRef, goDecoder, Hash } from '../params/index.js'
import { unmarshalBlockNumber, unmarshalBlockNumberOrHash } from '../params/block.js'
import { GoDecodeError, uint64Text, unmarshalHex } from '../params/gojson.js'
import { method, type Namespace, type ParamDecoder, RawJson } from '../types.js'

/** OTS_API_LEVEL: the level Otterscan 2.x requires (its MIN_API_LEVEL) and Erigon reports. */
export const OTS_API_LEVEL = 8
/** Selector bytes ots_getBlockTransactions keeps of each input (Erigon cuts the rest). */
const SELECTOR_BYTES = 4
const MAX_UINT64 = (1n << 64n) - 1n

/** A non-negative integer as Otterscan sends it: a plain JSON number; a hex quantity string is read too. */
function plainUint(raw: unknown, goType: string): bigint {
  if (typeof raw === 'number') {
    if (!Number.isInteger(raw) || raw < 0 || BigInt(raw) > MAX_UINT64) {
      throw new GoDecodeError(`number ${JSON.stringify(raw)}`, goType, true)
    }
    return BigInt(raw)
  }
  if (typeof raw === 'string') return unmarshalHex(raw, goType, uint64Text)
  throw new GoDecodeError(raw === null ? 'null' : typeof raw === 'object' ? 'object' : typeof raw, goType, true)
}

/** Block numbers, page numbers and sizes, nonces (Erigon: uint64 / uint16 / uint8). */
const PlainUint: ParamDecoder<bigint> = goDecoder((raw) => plainUint(raw, 'uint64'))

/** A block as ots_getBlockDetails / erigon_getHeaderByNumber take it: a plain number, a hex quantity or a tag. */
const OtsBlockNumber: ParamDecoder<BlockRef> = goDecoder((raw) =>
  typeof raw === 'number' ? { kind: 'number', number: plainUint(raw, 'rpc.BlockNumber') } : unmarshalBlockNumber(raw),
)

/** ots_hasCode's block: "latest", a plain number, a hex quantity, or a hash. */
const OtsBlockTag: ParamDecoder<BlockRef> = goDecoder((raw) =>
  typeof raw === 'number'
    ? { kind: 'number', number: plainUint(raw, 'rpc.BlockNumberOrHash') }
    : unmarshalBlockNumberOrHash(raw),
)

/** Erigon's --ots.search.max.pagesize check: a page larger than the node's limit is refused before anything is read. */
function pageSize(b: Backend, size: bigint): number {
  if (size > BigInt(b.otsMaxPageSize)) throw new InvalidParamsError(`max allowed page size: ${b.otsMaxPageSize}`)
  if (size === 0n) throw new InvalidParamsError('page size must be at least 1')
  return Number(size)
}

function needIndex(on: boolean, setting: string, what: string): void {
  if (!on) throw new ServerError(`${what} needs the explorer index [explorer] ${setting}, which is off on this node`)
}

/** Σ gasUsed × effectiveGasPrice: from the fees index, else from the stored receipts. */
function totalFees(b: Backend, block: ChainBlock): bigint {
  const indexed = b.explorer.enabled.fees ? b.explorer.blockFees(block.header.number) : undefined
  if (indexed !== undefined) return indexed
  let fees = 0n
  for (const r of b.receipts(block.hash) ?? []) fees += r.gasUsed * r.effectiveGasPrice
  return fees
}

/** ots_getBlockDetails' block: the header fields, size, uncles, transactionCount; no transactions, logsBloom null. */
function blockDetails(b: Backend, block: ChainBlock | undefined): RpcObject | null {
  if (block === undefined) return null
  const { transactions: _omitted, ...rest } = formatBlock(block, { fullTransactions: false, senders: [] })
  return {
    block: {
      ...rest,
      logsBloom: null,
      totalDifficulty: toQuantity(block.totalDifficulty),
      transactionCount: block.transactionBytes.length,
    },
    // IBFT issues no block or uncle reward: fees go to the proposer and the base fee's recipient
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: toQuantity(totalFees(b, block)),
  }
}

function txObject(block: ChainBlock, index: number, receipt: StoredReceipt): RpcObject {
  return formatTransaction(blockTransaction(block, index) as ChainBlock['transactions'][number], {
    from: receipt.from,
    blockHash: block.hash,
    blockNumber: block.header.number,
    blockTimestamp: block.header.timestamp,
    index,
    baseFee: block.header.baseFeePerGas,
  })
}

/** ots_getBlockTransactions: page `page` of `size` counted from the block's end (Erigon's order). */
function blockTransactions(b: Backend, block: ChainBlock, page: bigint, size: number): RpcObject {
  const count = block.transactionBytes.length
  const endBig = BigInt(count) - page * BigInt(size)
  const end = endBig < 0n ? 0 : Number(endBig)
  const start = Math.max(0, end - size)
  const receipts = b.receipts(block.hash) ?? []
  const txs: RpcObject[] = []
  const outReceipts: RpcObject[] = []
  for (let i = start; i < end; i++) {
    const tx = txObject(block, i, receipts[i] as StoredReceipt)
    const input = tx.input as string
    txs.push({ ...tx, input: input.length > 2 + 2 * SELECTOR_BYTES ? input.slice(0, 2 + 2 * SELECTOR_BYTES) : input })
    const receipt = formatReceipt(block, receipts, i, blockTransaction(block, i) as ChainBlock['transactions'][number])
    outReceipts.push({ ...receipt, logs: null, logsBloom: null })
  }
  const { transactions: _all, ...header } = formatBlock(block, { fullTransactions: false, senders: [] })
  return {
    fullblock: { ...header, transactions: txs, transactionCount: count, logsBloom: null },
    receipts: outReceipts,
  }
}

/** A search page: the transactions at `positions` (newest first) with their receipts, each with the block's timestamp. */
function searchPage(
  b: Backend,
  positions: { blockNumber: bigint; index: number }[],
  firstPage: boolean,
  lastPage: boolean,
): RpcObject {
  const txs: RpcObject[] = []
  const receipts: RpcObject[] = []
  let block: ChainBlock | undefined
  for (const p of positions) {
    if (block?.header.number !== p.blockNumber) block = b.blockByNumber(p.blockNumber)
    const stored = block && b.receipts(block.hash)
    const tx = block && blockTransaction(block, p.index)
    if (block === undefined || stored === undefined || tx === undefined) continue // beyond the head: a block being committed
    txs.push(txObject(block, p.index, stored[p.index] as StoredReceipt))
    // Erigon: `mReceipt["timestamp"] = block.Time()`, a JSON integer (anvil sends a hex quantity)
    receipts.push({ ...formatReceipt(block, stored, p.index, tx), timestamp: Number(block.header.timestamp) })
  }
  return { txs, receipts, firstPage, lastPage }
}

function traceOptions(tracer: TraceOptions['tracer']): TraceOptions {
  return { ...defaultTraceOptions(), tracer }
}

/** The mined transaction `hash` for a re-execution; geth's errors for none and for genesis. */
function minedTx(b: Backend, hash: Uint8Array) {
  const loc = b.txLocation(hash)
  if (loc === undefined) throw new NotFoundError('transaction')
  if (loc.blockNumber === 0n) throw new GenesisNotTraceableError()
  return loc
}

function headerByNumber(b: Backend, ref: BlockRef): RpcObject | null {
  const block = resolveBlock(b, ref)
  return block === undefined ? null : formatHeader(block)
}

const erigonMethods = {
  erigon_getHeaderByNumber: method([OtsBlockNumber], (b: Backend, [ref]) => headerByNumber(b, ref)),
}

export const otsNamespace: Namespace<Backend> = {
  name: 'ots',
  methods: {
    ots_getApiLevel: method([], () => OTS_API_LEVEL),
    ots_getBlockDetails: method([OtsBlockNumber], (b, [ref]) => blockDetails(b, resolveBlock(b, ref))),
    ots_getBlockDetailsByHash: method([Hash], (b, [hash]) => blockDetails(b, b.blockByHash(hash))),
    ots_getBlockTransactions: method([OtsBlockNumber, PlainUint, PlainUint], (b, [ref, page, size]) => {
      const n = pageSize(b, size)
      const block = resolveBlock(b, ref)
      if (block === undefined) return null
      return blockTransactions(b, block, page, n)
    }),
    ots_searchTransactionsBefore: method([Address, PlainUint, PlainUint], (b, [address, number, size]) => {
      const n = pageSize(b, size)
      needIndex(b.explorer.enabled.appearances, 'index_appearances', 'ots_searchTransactionsBefore')
      // 0: from the tip (every block, the head's included)
      const before = number === 0n ? b.head().header.number + 1n : number
      const found = b.explorer.appearancesBefore(hexToBytes(address), before, n)
      return searchPage(b, found.txs, number === 0n, found.exhausted)
    }),
    ots_searchTransactionsAfter: method([Address, PlainUint, PlainUint], (b, [address, number, size]) => {
      const n = pageSize(b, size)
      needIndex(b.explorer.enabled.appearances, 'index_appearances', 'ots_searchTransactionsAfter')
      const found = b.explorer.appearancesAfter(hexToBytes(address), number, n)
      // found oldest first; pages are newest first in both directions
      return searchPage(b, found.txs.reverse(), found.exhausted, number === 0n)
    }),
    ots_getTransactionBySenderAndNonce: method([Address, PlainUint], (b, [sender, nonce]) => {
      needIndex(b.explorer.enabled.senderNonce, 'index_sender_nonce', 'ots_getTransactionBySenderAndNonce')
      const hash = b.explorer.txBySenderAndNonce(hexToBytes(sender), nonce)
      return hash === undefined ? null : toData(hash)
    }),
    ots_getContractCreator: method([Address], async (b, [address]) => {
      needIndex(b.explorer.enabled.creators, 'index_creators', 'ots_getContractCreator')
      // Erigon: no code at the head (an account, or a contract since destroyed) is null
      const code = await b.state(b.head()).code(address)
      if (code.length === 0) return null
      const found = b.explorer.contractCreator(hexToBytes(address))
      return found === undefined ? null : { hash: toData(found.txHash), creator: toData(found.creator) }
    }),
    ots_getTransactionError: method([Hash], async (b, [hash]) => {
      const loc = minedTx(b, hash)
      const receipt = b.receipts(loc.blockHash)?.[loc.index]
      if (receipt === undefined || receipt.status !== 0) return '0x'
      if (b.explorer.enabled.reverts) {
        const output = b.explorer.revertOutput(hash)
        return output === undefined ? '0x' : toData(output)
      }
      return new RawJson(await b.traceTransaction(loc, traceOptions('otsError')))
    }),
    ots_traceTransaction: method(
      [Hash],
      async (b, [hash]) => new RawJson(await b.traceTransaction(minedTx(b, hash), traceOptions('otsTrace'))),
    ),
    ots_getInternalOperations: method(
      [Hash],
      async (b, [hash]) => new RawJson(await b.traceTransaction(minedTx(b, hash), traceOptions('otsInternal'))),
    ),
    ots_hasCode: method([Address, OtsBlockTag], async (b, [address, ref]) => {
      const code = await b.state(stateBlock(b, ref)).code(address)
      return code.length > 0
    }),
  },
}

/** erigon_: the one Erigon method Otterscan calls; `ots` in `[jsonrpc] api` serves it too. */
export const erigonNamespace: Namespace<Backend> = { name: 'erigon', methods: erigonMethods }

/** The namespaces served for `api`: `ots` brings `erigon` (Otterscan needs both). */
export function withImpliedNamespaces<T extends string>(api: readonly T[]): T[] {
  return api.includes('ots' as T) && !api.includes('erigon' as T) ? [...api, 'erigon' as T] : [...api]
}
