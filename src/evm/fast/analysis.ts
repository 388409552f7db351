/**
 * Code analysis, once per code object: the valid JUMPDESTs (not inside PUSH data, as ethereumjs
 * and geth scan) and the value of every PUSH1..PUSH32 immediate (zero-padded past the end of the
 * code), so the interpreter neither rescans nor re-decodes per frame. Code objects come from the
 * shared code cache (same bytes object for the same code hash), so a WeakMap by object suffices.
 */

export interface CodeAnalysis {
  /** 1 at each valid JUMPDEST. */
  jumpdests: Uint8Array
  /** The pushed value, at the index of each PUSH1..PUSH32 opcode. */
  pushes: bigint[]
}

const byCode = new WeakMap<Uint8Array, CodeAnalysis>()

export function analyze(code: Uint8Array): CodeAnalysis {
  let a = byCode.get(code)
  if (a !== undefined) return a
  const n = code.length
  const jumpdests = new Uint8Array(n)
  const pushes: bigint[] = new Array(n).fill(0n)
  for (let i = 0; i < n; i++) {
    const op = code[i] as number
    if (op === 0x5b) {
      jumpdests[i] = 1
    } else if (op >= 0x60 && op <= 0x7f) {
      const size = op - 0x5f
      if (size <= 6 && i + size < n) {
        let v = 0
        for (let k = 1; k <= size; k++) v = v * 256 + (code[i + k] as number)
        pushes[i] = BigInt(v)
      } else {
        let hex = ''
        for (let k = 1; k <= size; k++) hex += (i + k < n ? (code[i + k] as number) : 0).toString(16).padStart(2, '0')
        pushes[i] = BigInt(`0x${hex}`)
      }
      i += size
    }
  }
  a = { jumpdests, pushes }
  byCode.set(code, a)
  return a
}
