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
import { Doorkeeper, fnvBytes, fnvEnd, fnvNumber, fnvStart } from '../../util/doorkeeper.js'
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

/** False for a call not worth a cache entry: large calldata, blob and set-code messages (rare in eth_call traffic). */
function worthCaching(req: CallRequest): boolean {
  return (
    (req.data?.length ?? 0) <= CALL_CACHE_MAX_INPUT_BYTES &&
    req.blobVersionedHashes === undefined &&
    req.authorizationList === undefined
  )
}

/** The cache key of a call, or undefined when it is not worth caching. */
export function callKey(blockHash: Uint8Array, req: CallRequest, gasCap: bigint): string | undefined {
  if (!worthCaching(req)) return undefined
  const list = req.accessList === undefined ? '' : JSON.stringify(req.accessList)
  return `${hashHex(blockHash)}|${gasCap}|${hex(req.from)}|${hex(req.to)}|${req.gas ?? ''}|${req.gasPrice ?? ''}|${req.maxFeePerGas ?? ''}|${req.maxPriorityFeePerGas ?? ''}|${req.value ?? ''}|${req.nonce ?? ''}|${req.chainId ?? ''}|${req.maxFeePerBlobGas ?? ''}|${list}|${hex(req.data)}`
}

/**
 * The doorkeeper's fingerprint of a call: FNV-1a of its block hash, sender, recipient and calldata
 * bytes and the low bits of the gas cap, read straight from the bytes (no key string), or undefined
 * when the call is not worth caching. The message's number fields are left out: two calls that
 * differ only there share a fingerprint, which only builds their key early (callKey tells them apart).
 */
export function callFingerprint(blockHash: Uint8Array, req: CallRequest, gasCap: bigint): number | undefined {
  if (!worthCaching(req)) return undefined
  let h = fnvBytes(fnvStart(), blockHash)
  h = fnvBytes(h, req.from)
  h = fnvBytes(h, req.to)
  h = fnvBytes(h, req.data)
  return fnvEnd(fnvNumber(h, Number(gasCap & 0xffffffffn)))
}

/**
 * Results by key, oldest dropped first, behind a doorkeeper of fingerprints (callFingerprint): the
 * scheduler (ExecPool.call) builds a call's key and looks it up only when its fingerprint was seen
 * (`seen`), and marks it seen (`see`) when a call it did not key is answered, so a result is kept
 * the second time its call is answered, not the first. Distinct calls that never come back (a scan
 * of balances) then leave nothing behind and cost no key: kept, each pushed an older entry out
 * and left it to the old generation's collector — distinct eth_calls ran ~20% slower once the
 * cache was full (2026-11-28, scratch harness: 16.4k → 12.8k req/s over four rounds, flat at
 * 16–17.7k without) — and the key string (~200 characters, flattened and hashed) cost the main
 * thread ~2 µs a call. A repeated call is executed twice before it is served from memory.
 */
class CallCache {
  readonly #map = new FifoMap<string, CachedCall>()
  readonly #door = new Doorkeeper(CALL_CACHE_DOORKEEPER_SLOTS)
  #bytes = 0
  /** Forgets every result (and every fingerprint seen). */
  clear(): void {
    this.#map.clear()
    this.#door.clear()
    this.#bytes = 0
  }
  /** True when a call with this fingerprint was answered before (or one sharing its slot since). */
  seen(fingerprint: number): boolean {
    return this.#door.seen(fingerprint)
  }
  /** Marks the fingerprint seen. */
  see(fingerprint: number): void {
    this.#door.see(fingerprint)
  }
  get(key: string): CachedCall | undefined {
    return this.#map.get(key)
  }
  set(key: string, value: CachedCall): void {
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
