/**
 * eth_getLogs: logs of a block range (or one block by hash) filtered by address and
 * positional topics. Blocks whose header bloom cannot match are skipped without reading
 * their receipts. (A log index and worker-side scans come with the filters issue.)
 */
import { bloomContains } from '../../../chain/bloom.js'
import type { LogTuple } from '../../../chain/receipt.js'
import type { ChainBlock } from '../../../chain/store.js'
import type { Backend } from '../../backend.js'
import { InvalidParamsError, ServerError } from '../../errors.js'
import { formatLog } from '../../format/receipt.js'
import { FilterOptions, type FilterArgs, type BlockRef } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

/** Most logs one eth_getLogs answer carries (guards memory; config key in the filters issue). */
export const GETLOGS_MAX_RESULTS = 10_000

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}

/** A filter with its addresses as bytes (decoded once per query). */
interface Query {
  addresses: Uint8Array[]
  topics: (Uint8Array[] | null)[]
}

function toQuery(f: FilterArgs): Query {
  return { addresses: f.addresses.map((a) => Buffer.from(a.slice(2), 'hex')), topics: f.topics }
}

function bloomMayMatch(bloom: Uint8Array, f: Query): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => bloomContains(bloom, a))) return false
  for (const position of f.topics) {
    if (position === null || position.length === 0) continue
    if (!position.some((t) => bloomContains(bloom, t))) return false
  }
  return true
}

function logMatches(log: LogTuple, f: Query): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => equal(a, log[0]))) return false
  if (f.topics.length > log[1].length) return false
  for (let i = 0; i < f.topics.length; i++) {
    const position = f.topics[i]
    if (position === null || position === undefined || position.length === 0) continue
    if (!position.some((t) => equal(t, log[1][i] as Uint8Array))) return false
  }
  return true
}

export function blockLogs(b: Backend, block: ChainBlock, f: Query, out: object[]): void {
  if (!bloomMayMatch(block.header.logsBloom, f)) return
  const receipts = b.store.getReceipts(block.hash) ?? []
  let logIndex = 0
  receipts.forEach((r, txIndex) => {
    for (const log of r.logs) {
      if (logMatches(log, f)) {
        if (out.length >= GETLOGS_MAX_RESULTS) {
          throw new ServerError(`query returned more than ${GETLOGS_MAX_RESULTS} results`)
        }
        const txHash = (block.transactions[txIndex] as { hash(): Uint8Array }).hash()
        out.push(formatLog(log, { block, txHash, txIndex, logIndex }))
      }
      logIndex++
    }
  })
}

function numberOf(b: Backend, ref: BlockRef | undefined): bigint {
  if (ref === undefined) return b.store.head.header.number
  if (ref.kind === 'number') return ref.number
  if (ref.kind === 'tag') return ref.tag === 'earliest' ? 0n : b.store.head.header.number
  const block = b.store.getBlockByHash(ref.hash)
  if (block === undefined) throw new ServerError('header for hash not found')
  return block.header.number
}

export const logMethods: MethodTable<Backend> = {
  eth_getLogs: {
    params: [FilterOptions],
    handler: (b, [raw]) => {
      const f = raw as FilterArgs
      const q = toQuery(f)
      const out: object[] = []
      if (f.blockHash !== undefined) {
        const block = b.store.getBlockByHash(f.blockHash)
        if (block === undefined) throw new ServerError('unknown block')
        blockLogs(b, block, q, out)
        return out
      }
      const head = b.store.head.header.number
      const from = numberOf(b, f.fromBlock)
      const to = numberOf(b, f.toBlock)
      if (from > head) return out
      if (from > to) throw new InvalidParamsError('invalid block range params')
      const last = to > head ? head : to
      for (let n = from; n <= last; n++) {
        const block = b.store.getBlockByNumber(n)
        if (block !== undefined) blockLogs(b, block, q, out)
      }
      return out
    },
  },
}
