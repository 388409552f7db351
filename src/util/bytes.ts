/** Byte helpers shared by the state and execution modules. */

/** Unprefixed lowercase hex of `bytes`, without copying them (map keys, node store keys). */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}
