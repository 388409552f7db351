/**
 * Receipts as ibex stores them: the consensus receipt (status or post-state root,
 * cumulative gas, logs) plus what the RPC layer needs without re-executing or re-recovering
 * (gas used, sender, created contract, effective gas price, blob gas).
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'
import { decodeRlp } from '../util/rlp.js'

export type LogTuple = [address: Uint8Array, topics: Uint8Array[], data: Uint8Array]

export interface StoredReceipt {
  /** EIP-2718 type of the transaction. */
  type: number
  /** 1 success, 0 failure; undefined before Byzantium (then `root` is set). */
  status: 0 | 1 | undefined
  /** Post-transaction state root (pre-Byzantium only). */
  root: Uint8Array | undefined
  cumulativeGasUsed: bigint
  gasUsed: bigint
  logs: LogTuple[]
  from: Uint8Array
  contractAddress: Uint8Array | undefined
  effectiveGasPrice: bigint
  blobGasUsed: bigint
  blobGasPrice: bigint
}

const EMPTY = new Uint8Array(0)

export function encodeStoredReceipts(receipts: StoredReceipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => [
      bigIntToUnpaddedBytes(BigInt(r.type)),
      r.status === undefined ? EMPTY : bigIntToUnpaddedBytes(BigInt(r.status)),
      r.root ?? EMPTY,
      bigIntToUnpaddedBytes(r.cumulativeGasUsed),
      bigIntToUnpaddedBytes(r.gasUsed),
      r.logs,
      r.from,
      r.contractAddress ?? EMPTY,
      bigIntToUnpaddedBytes(r.effectiveGasPrice),
      bigIntToUnpaddedBytes(r.blobGasUsed),
      bigIntToUnpaddedBytes(r.blobGasPrice),
    ]),
  )
}

export function decodeStoredReceipts(bytes: Uint8Array): StoredReceipt[] {
  const list = decodeRlp(bytes) as unknown as Uint8Array[][]
  return list.map((f) => {
    const statusBytes = f[1] as Uint8Array
    const root = f[2] as Uint8Array
    const contract = f[7] as Uint8Array
    return {
      type: Number(bytesToBigInt(f[0] as Uint8Array)),
      status: root.length > 0 ? undefined : (Number(bytesToBigInt(statusBytes)) as 0 | 1),
      root: root.length > 0 ? root : undefined,
      cumulativeGasUsed: bytesToBigInt(f[3] as Uint8Array),
      gasUsed: bytesToBigInt(f[4] as Uint8Array),
      logs: f[5] as unknown as LogTuple[],
      from: f[6] as Uint8Array,
      contractAddress: contract.length > 0 ? contract : undefined,
      effectiveGasPrice: bytesToBigInt(f[8] as Uint8Array),
      blobGasUsed: bytesToBigInt(f[9] as Uint8Array),
      blobGasPrice: bytesToBigInt(f[10] as Uint8Array),
    }
  })
}

/**
 * The consensus encoding of a receipt (what the receipts trie holds):
 * type byte (typed txs) ‖ RLP([statusOrRoot, cumulativeGasUsed, bloom, logs]).
 */
export function encodeConsensusReceipt(r: StoredReceipt, bloom: Uint8Array): Uint8Array {
  const first = r.root ?? (r.status === 1 ? Uint8Array.of(1) : EMPTY)
  const body = RLP.encode([first, bigIntToUnpaddedBytes(r.cumulativeGasUsed), bloom, r.logs])
  if (r.type === 0) return body
  const out = new Uint8Array(body.length + 1)
  out[0] = r.type
  out.set(body, 1)
  return out
}
