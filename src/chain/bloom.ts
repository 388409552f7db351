/**
 * The 2048-bit log bloom of the yellow paper (§4.3.1): for the address and every topic,
 * three bits chosen by the low 11 bits of the first three byte pairs of its keccak256.
 */
import { keccak256 } from '../util/crypto.js'
import type { LogTuple } from './receipt.js'

export const BLOOM_BYTES = 256

export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item)
  for (let i = 0; i < 6; i += 2) {
    const bit = (((h[i] as number) << 8) | (h[i + 1] as number)) & 2047
    bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7)
  }
}

export function logsBloom(logs: LogTuple[], into: Uint8Array = new Uint8Array(BLOOM_BYTES)): Uint8Array {
  for (const [address, topics] of logs) {
    addToBloom(into, address)
    for (const topic of topics) addToBloom(into, topic)
  }
  return into
}

export function orBloom(target: Uint8Array, source: Uint8Array): void {
  for (let i = 0; i < BLOOM_BYTES; i++) target[i]! |= source[i] as number
}

/** True when every bit of `item`'s bloom is set in `bloom`. */
export function bloomContains(bloom: Uint8Array, item: Uint8Array): boolean {
  const h = keccak256(item)
  for (let i = 0; i < 6; i += 2) {
    const bit = (((h[i] as number) << 8) | (h[i + 1] as number)) & 2047
    if (((bloom[BLOOM_BYTES - 1 - (bit >> 3)] as number) & (1 << (bit & 7))) === 0) return false
  }
  return true
}
