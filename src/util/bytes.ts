/** Byte helpers shared by the state and execution modules. */

/** Unprefixed lowercase hex of `bytes`, without copying them (map keys, node store keys). */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

/** True when `a` and `b` hold the same bytes (a plain loop: for the short arrays compared on hot paths). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false
  return true
}
