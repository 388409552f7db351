/**
 * Results of eth_call by block: a call is a pure function of the block (its state root and header)
 * and the message, so a repeated call at the same block — the bulk of a public host's eth_call
 * traffic (balanceOf, getReserves… of the same contracts, block after block) — is answered from
 * memory. Keyed by block hash, the RPC gas cap and every field of the message; only completed
 * executions are kept (a timeout is not a result), and messages with large calldata are not kept.
 * Used by ExecPool.call on the node's main thread, before a call is scheduled; workers keep none.
 * A dev chain whose head state is edited in place (src/consensus/devControl.ts) clears it: the
 * block hash then no longer names one state.
 */
import type { CallRequest } from '../../evm/call.js'
import { sameBytes } from '../../util/bytes.js'
import { FifoMap } from '../../util/fifoMap.js'

/** Results kept. */
export const CALL_CACHE_ENTRIES = 50_000
/** Return data kept, bytes. */
export const CALL_CACHE_BYTES = 32 * 1024 * 1024
/** Calldata above this is not cached (the key would cost more than it saves). */
export const CALL_CACHE_MAX_INPUT_BYTES = 4096
/**
 * Slots of the doorkeeper (a power of two): a result is kept only when its key was seen before,
 * while its fingerprint still holds its slot — among roughly the last this many distinct calls.
 */
export const CALL_CACHE_DOORKEEPER_SLOTS = 1 << 17

export type CachedCall = { reverted: boolean; data: Uint8Array }

function hex(b: Uint8Array | undefined): string {
  return b === undefined ? '' : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')
}

/** The block hash of the last key (a copy) and its hex: calls come at the head's hash, many in a row. */
let lastHash: Uint8Array = new Uint8Array(0)
let lastHashHex = ''

function hashHex(blockHash: Uint8Array): string {
  if (!sameBytes(blockHash, lastHash)) {
    lastHash = Uint8Array.from(blockHash)
    lastHashHex = hex(blockHash)
  }
  return lastHashHex
}

/** The cache key of a call, or undefined when it is not worth caching. */
export function callKey(blockHash: Uint8Array, req: CallRequest, gasCap: bigint): string | undefined {
  if ((req.data?.length ?? 0) > CALL_CACHE_MAX_INPUT_BYTES) return undefined
  // blob and set-code messages are rare in eth_call traffic: not worth a key
  if (req.blobVersionedHashes !== undefined || req.authorizationList !== undefined) return undefined
  const list = req.accessList === undefined ? '' : JSON.stringify(req.accessList)
  return `${hashHex(blockHash)}|${gasCap}|${hex(req.from)}|${hex(req.to)}|${req.gas ?? ''}|${req.gasPrice ?? ''}|${req.maxFeePerGas ?? ''}|${req.maxPriorityFeePerGas ?? ''}|${req.value ?? ''}|${req.nonce ?? ''}|${req.chainId ?? ''}|${req.maxFeePerBlobGas ?? ''}|${list}|${hex(req.data)}`
}

/** FNV-1a of the key's UTF-16 units: the doorkeeper's fingerprint (a collision only admits a key early). */
function fingerprint(key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return h | 0
}

/**
 * Results by key, oldest dropped first, behind a doorkeeper: a call's result is kept the second
 * time its key is answered, not the first. Distinct calls that never come back (a scan of
 * balances) then leave nothing behind: kept, each pushed an older entry out and left it to the
 * old generation's collector — distinct eth_calls ran ~20% slower once the cache was full
 * (2026-11-28, scratch harness: 16.4k → 12.8k req/s over four rounds, flat at 16–17.7k without).
 * A repeated call is executed twice before it is served from memory.
 */
class CallCache {
  readonly #map = new FifoMap<string, CachedCall>()
  readonly #seen = new Int32Array(CALL_CACHE_DOORKEEPER_SLOTS)
  #bytes = 0
  /** Forgets every result (and every key seen). */
  clear(): void {
    this.#map.clear()
    this.#seen.fill(0)
    this.#bytes = 0
  }
  /** True when `key` was seen before (its fingerprint holds its slot); marks it seen either way. */
  #admit(key: string): boolean {
    const h = fingerprint(key)
    const slot = h & (CALL_CACHE_DOORKEEPER_SLOTS - 1)
    if (this.#seen[slot] === h) return true
    this.#seen[slot] = h
    return false
  }
  get(key: string): CachedCall | undefined {
    return this.#map.get(key)
  }
  set(key: string, value: CachedCall): void {
    if (!this.#admit(key)) return
    // a key answered twice (two identical calls in flight) keeps its place and its byte count: the
    // answer is a pure function of the key, so the second one is the same
    if (!this.#map.set(key, value)) return
    this.#bytes += value.data.length + key.length
    while (this.#map.size > CALL_CACHE_ENTRIES || this.#bytes > CALL_CACHE_BYTES) {
      const oldest = this.#map.shift()
      if (oldest === undefined) break
      this.#bytes -= oldest[1].data.length + oldest[0].length
    }
  }
}

export const callResults = new CallCache()
