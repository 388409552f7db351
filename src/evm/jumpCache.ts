/**
 * Jump analysis once per code, not once per call frame (installed by evmPatches.ts). ethereumjs' interpreter scans the whole
 * bytecode (valid JUMPDESTs, PUSH immediates, the opcode of every byte) each time a frame starts
 * running code that has a JUMP — for a view call into a 5 kB token that scan is a tenth of the
 * call. The result depends only on the bytes and the EVM's opcode table (the fork), and the
 * interpreter never writes to it, so it is kept:
 *
 *   _getValidJumpDestinations(code) ─ same bytes object seen? ─yes─▶ cached analysis
 *                                   └─ no ─▶ same content seen (bounded map)? ─yes─▶ cached
 *                                            └─ no ─▶ ethereumjs' scan, remembered under both
 *
 * An entry is used only with the opcode table it was made with (another fork, another table:
 * scanned again). What must hold: the answer is the one ethereumjs' own scan gives for those
 * bytes under that table (src/evm/jumpCache.test.ts compares them).
 */

/** Distinct codes remembered by content (the by-object map is weak and needs no bound). */
export const JUMP_CACHE_CODES = 1024
/** Codes shorter than this are scanned each time (cheaper than building the content key). */
const MIN_CACHED_CODE_BYTES = 64

interface Analysis {
  table: unknown
  result: unknown
}

const byObject = new WeakMap<Uint8Array, Analysis>()
const byContent = new Map<string, Analysis>()

function contentKey(code: Uint8Array): string {
  return Buffer.from(code.buffer, code.byteOffset, code.byteLength).toString('latin1')
}

/**
 * The jump analysis of `code` under the opcode `table`: remembered, or `scan()` (ethereumjs' own)
 * run and remembered. Called by the patched Interpreter._getValidJumpDestinations (evmPatches.ts).
 */
export function jumpAnalysis(code: Uint8Array, table: unknown, scan: () => unknown): unknown {
  if (code.length < MIN_CACHED_CODE_BYTES) return scan()
  const seen = byObject.get(code)
  if (seen !== undefined && seen.table === table) return seen.result
  const key = contentKey(code)
  let found = byContent.get(key)
  if (found === undefined || found.table !== table) {
    found = { table, result: scan() }
    if (byContent.size >= JUMP_CACHE_CODES) byContent.delete(byContent.keys().next().value as string)
    byContent.set(key, found)
  }
  byObject.set(code, found)
  return found.result
}
