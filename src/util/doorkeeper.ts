/**
 * The doorkeeper of a cache that keeps a key only when it comes back (TinyLFU's admission): a
 * fixed table of 32-bit fingerprints, one per slot, each the latest key that hashed there. A key
 * seen once and never again (a scan of distinct balances, slots or calls) then costs the cache no
 * insertion and no eviction — entries that would have been pushed out unread, into the old
 * generation's collector — while a key that comes back while its fingerprint holds its slot is let
 * in. A collision only lets a key in early; no allocation after construction.
 */

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** Starts an FNV-1a fingerprint. */
export function fnvStart(): number {
  return FNV_OFFSET
}

/** Folds bytes into an FNV-1a fingerprint; the length ends the field (bytes moved across fields change it). */
export function fnvBytes(h: number, b: Uint8Array | undefined): number {
  if (b === undefined) return Math.imul(h ^ 0x100, FNV_PRIME)
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ (b[i] as number), FNV_PRIME)
  return Math.imul(h ^ (b.length | 0x200), FNV_PRIME)
}

/** Folds a 32-bit number into an FNV-1a fingerprint. */
export function fnvNumber(h: number, n: number): number {
  return Math.imul(h ^ n, FNV_PRIME)
}

/** Folds a string's UTF-16 units into an FNV-1a fingerprint. */
export function fnvString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME)
  return h
}

/**
 * Ends a fingerprint: FNV's low bits (which pick the slot) depend only on its inputs' low bits, so
 * the high bits are mixed down (murmur3's finish).
 */
export function fnvEnd(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) | 0
}

export class Doorkeeper {
  readonly #seen: Int32Array
  readonly #mask: number
  /** `slots`: a power of two — roughly how many recent distinct keys are remembered. */
  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots <= 0 || (slots & (slots - 1)) !== 0)
      throw new RangeError(`doorkeeper slots must be a power of two, got ${slots}`)
    this.#seen = new Int32Array(slots)
    this.#mask = slots - 1
  }
  /** True when the fingerprint holds its slot: a key with it was seen before (or shares its slot since). */
  seen(fingerprint: number): boolean {
    return this.#seen[fingerprint & this.#mask] === fingerprint
  }
  /** Marks the fingerprint seen (it takes its slot from whichever held it). */
  see(fingerprint: number): void {
    this.#seen[fingerprint & this.#mask] = fingerprint
  }
  /** True when `key` was seen before; marks it seen either way. */
  admit(key: string): boolean {
    const fingerprint = fnvEnd(fnvString(FNV_OFFSET, key))
    if (this.seen(fingerprint)) return true
    this.see(fingerprint)
    return false
  }
  /** Forgets every key seen. */
  clear(): void {
    this.#seen.fill(0)
  }
}
