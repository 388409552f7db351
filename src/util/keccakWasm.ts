/**
 * keccak-f[1600] as a WebAssembly function, generated here at load (a few KiB of bytecode, compiled
 * synchronously): 64-bit lanes with native i64 rotates, where the TypeScript permutation in
 * keccak.ts works on 32-bit halves. keccak.ts drives it; this file only builds the module.
 *
 *   memory: [0, 200)           the state, 25 lanes, little-endian (lane x + 5y at 8·(x + 5y))
 *           [RC_OFFSET, +192)  the 24 round constants
 *           [INPUT_OFFSET, …)  input blocks, INPUT_BLOCKS of RATE_BYTES at most per call
 *   absorb(ptr, blocks): for each block at ptr: the state ^= its 17 lanes, then the 24 rounds
 *
 * The step mappings (theta, rho and pi, chi, iota) are FIPS 202 §3.2; the rotation offsets are
 * derived from their definition (§3.2.2) rather than written out.
 */

/** Bytes absorbed per permutation for a 256-bit output (1600 - 2·256 bits). */
export const RATE_BYTES = 136
const RATE_LANES = RATE_BYTES / 8
const ROUNDS = 24
/** Where the round constants sit. */
const RC_OFFSET = 256
/** Where keccak.ts copies input blocks. */
export const INPUT_OFFSET = 512
/** Input blocks one absorb call takes (the rest of the memory's first page). */
export const INPUT_BLOCKS = Math.floor((65_536 - INPUT_OFFSET) / RATE_BYTES)

export interface KeccakWasm {
  /** The module's memory (one page; it never grows, so views of it stay valid). */
  memory: Uint8Array
  absorb(ptr: number, blocks: number): void
}

// opcodes used (WebAssembly core spec §5.4)
const OP = {
  block: 0x02,
  loop: 0x03,
  br: 0x0c,
  brIf: 0x0d,
  end: 0x0b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i64Load: 0x29,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Shl: 0x74,
  i64And: 0x83,
  i64Xor: 0x85,
  i64Rotl: 0x89,
} as const
const VOID_BLOCK = 0x40
const I32 = 0x7f
const I64 = 0x7e

function uleb(n: number): number[] {
  const out: number[] = []
  do {
    let byte = n & 0x7f
    n >>>= 7
    if (n !== 0) byte |= 0x80
    out.push(byte)
  } while (n !== 0)
  return out
}

function sleb(n: bigint): number[] {
  const out: number[] = []
  for (;;) {
    const byte = Number(n & 0x7fn)
    n >>= 7n
    const done = (n === 0n && (byte & 0x40) === 0) || (n === -1n && (byte & 0x40) !== 0)
    out.push(done ? byte : byte | 0x80)
    if (done) return out
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body]
}

function name(s: string): number[] {
  return [...uleb(s.length), ...Buffer.from(s, 'latin1')]
}

/** Rotation offset of lane (x, y), from §3.2.2: walk t = 0..23 from (1, 0) via (x, y) → (y, 2x + 3y). */
function rotations(): number[] {
  const r = new Array<number>(25).fill(0)
  let x = 1
  let y = 0
  for (let t = 0; t < ROUNDS; t++) {
    r[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64
    const nx = y
    y = (2 * x + 3 * y) % 5
    x = nx
  }
  return r
}

/** The function body of absorb(ptr, blocks). */
function absorbBody(): number[] {
  // locals: 0 ptr, 1 blocks (params), 2 round (i32), a 3..27, b 28..52, c 53..57, d 58 (i64)
  const PTR = 0
  const BLOCKS = 1
  const ROUND = 2
  const a = (i: number) => 3 + i
  const b = (i: number) => 28 + i
  const c = (i: number) => 53 + i
  const D = 58
  const code: number[] = []
  const get = (l: number) => code.push(OP.localGet, ...uleb(l))
  const set = (l: number) => code.push(OP.localSet, ...uleb(l))
  const i64 = (v: bigint) => code.push(OP.i64Const, ...sleb(v))
  const i32 = (v: number) => code.push(OP.i32Const, ...sleb(BigInt(v)))
  const load = (offset: number) => code.push(OP.i64Load, 3, ...uleb(offset))
  const rot = rotations()

  for (let i = 0; i < 25; i++) {
    i32(0)
    load(8 * i)
    set(a(i))
  }
  code.push(OP.block, VOID_BLOCK, OP.loop, VOID_BLOCK)
  get(BLOCKS)
  code.push(OP.i32Eqz, OP.brIf, 1)
  for (let i = 0; i < RATE_LANES; i++) {
    get(a(i))
    get(PTR)
    load(8 * i)
    code.push(OP.i64Xor)
    set(a(i))
  }
  i32(0)
  set(ROUND)
  code.push(OP.loop, VOID_BLOCK)
  // theta
  for (let x = 0; x < 5; x++) {
    get(a(x))
    for (let y = 1; y < 5; y++) {
      get(a(x + 5 * y))
      code.push(OP.i64Xor)
    }
    set(c(x))
  }
  for (let x = 0; x < 5; x++) {
    get(c((x + 4) % 5))
    get(c((x + 1) % 5))
    i64(1n)
    code.push(OP.i64Rotl, OP.i64Xor)
    set(D)
    for (let y = 0; y < 5; y++) {
      get(a(x + 5 * y))
      get(D)
      code.push(OP.i64Xor)
      set(a(x + 5 * y))
    }
  }
  // rho and pi: B[y, 2x + 3y] = rotl(A[x, y], r[x, y])
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      get(a(x + 5 * y))
      const r = rot[x + 5 * y] as number
      if (r !== 0) {
        i64(BigInt(r))
        code.push(OP.i64Rotl)
      }
      set(b(y + 5 * ((2 * x + 3 * y) % 5)))
    }
  }
  // chi: A[x, y] = B[x, y] ^ (~B[x + 1, y] & B[x + 2, y])
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      get(b(x + 5 * y))
      get(b(((x + 1) % 5) + 5 * y))
      i64(-1n)
      code.push(OP.i64Xor)
      get(b(((x + 2) % 5) + 5 * y))
      code.push(OP.i64And, OP.i64Xor)
      set(a(x + 5 * y))
    }
  }
  // iota
  get(a(0))
  get(ROUND)
  i32(3)
  code.push(OP.i32Shl)
  load(RC_OFFSET)
  code.push(OP.i64Xor)
  set(a(0))
  get(ROUND)
  i32(1)
  code.push(OP.i32Add, OP.localTee, ...uleb(ROUND))
  i32(ROUNDS)
  code.push(OP.i32LtU, OP.brIf, 0, OP.end)
  // next block
  get(PTR)
  i32(RATE_BYTES)
  code.push(OP.i32Add)
  set(PTR)
  get(BLOCKS)
  i32(1)
  code.push(OP.i32Sub)
  set(BLOCKS)
  code.push(OP.br, 0, OP.end, OP.end)
  for (let i = 0; i < 25; i++) {
    i32(0)
    get(a(i))
    code.push(OP.i64Store, 3, ...uleb(8 * i))
  }
  code.push(OP.end)
  const locals = [2, ...uleb(1), I32, ...uleb(56), I64]
  const body = [...locals, ...code]
  return [...uleb(body.length), ...body]
}

/** The module's bytes; `roundConstants` are the 24 constants of iota. */
export function keccakModuleBytes(roundConstants: readonly bigint[]): Uint8Array {
  if (roundConstants.length !== ROUNDS) throw new Error(`keccak: ${ROUNDS} round constants expected`)
  const rcBytes = new Uint8Array(8 * ROUNDS)
  const view = new DataView(rcBytes.buffer)
  for (let i = 0; i < ROUNDS; i++) view.setBigUint64(8 * i, roundConstants[i] as bigint, true)
  const bytes = [
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    // type 0: (i32, i32) -> ()
    ...section(1, [1, 0x60, 2, I32, I32, 0]),
    ...section(3, [1, 0]),
    // one page, fixed
    ...section(5, [1, 0x01, 1, 1]),
    ...section(7, [2, ...name('absorb'), 0x00, 0, ...name('memory'), 0x02, 0]),
    ...section(10, [1, ...absorbBody()]),
    // active data segment: the round constants at RC_OFFSET
    ...section(11, [1, 0, OP.i32Const, ...sleb(BigInt(RC_OFFSET)), OP.end, ...uleb(rcBytes.length), ...rcBytes]),
  ]
  return Uint8Array.from(bytes)
}

/** What this file uses of the WebAssembly global (the compiler's lib here has no DOM types). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object
  Instance: new (
    module: object,
    imports: object,
  ) => { exports: { absorb: (ptr: number, blocks: number) => void; memory: { buffer: ArrayBuffer } } }
}

/** The compiled permutation, or undefined where this Node has no WebAssembly (--jitless). */
export function loadKeccakWasm(roundConstants: readonly bigint[]): KeccakWasm | undefined {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
  if (api === undefined) return undefined
  const module = new api.Module(keccakModuleBytes(roundConstants))
  const { exports } = new api.Instance(module, {})
  return { memory: new Uint8Array(exports.memory.buffer), absorb: exports.absorb }
}
