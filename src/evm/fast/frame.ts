/**
 * One call frame of the fast interpreter (stack, memory, gas, context), the halts a frame can end
 * in, and the memory helpers. Frames are pooled by call depth: a call at depth d always runs in
 * the same Frame object, reset on entry, so a view call allocates no frame, stack or memory.
 */
import type { CodeAnalysis } from './analysis.js'
import { type Account, bytesToWord } from './world.js'

/** EVM stack depth. */
export const STACK_LIMIT = 1024
/** Memory offsets or sizes above this cost more gas than any fast call may carry (see MAX_FAST_GAS). */
export const MAX_MEMORY_BYTES = 0xffffffff

/** How a frame ended: success (STOP / RETURN / end of code), REVERT, or an exceptional halt. */
export const ST_OK = 0
export const ST_REVERT = 1
export const ST_OUT_OF_GAS = 2
export const ST_STACK_UNDERFLOW = 3
export const ST_STACK_OVERFLOW = 4
export const ST_INVALID_JUMP = 5
export const ST_INVALID_OPCODE = 6
export const ST_STATIC_CHANGE = 7

/** The ethereumjs error string of each status (what errors.ts maps to geth's wording). */
export const STATUS_ERRORS = [
  '',
  'revert',
  'out of gas',
  'stack underflow',
  'stack overflow',
  'invalid JUMP',
  'invalid opcode',
  'static state change',
]

/** An exceptional halt or revert, thrown out of the opcode loop to the frame's runner. */
export class Halt {
  readonly status: number
  constructor(status: number) {
    this.status = status
  }
}

export const OUT_OF_GAS = new Halt(ST_OUT_OF_GAS)
export const STACK_UNDERFLOW = new Halt(ST_STACK_UNDERFLOW)
export const STACK_OVERFLOW = new Halt(ST_STACK_OVERFLOW)
export const INVALID_JUMP = new Halt(ST_INVALID_JUMP)
export const INVALID_OPCODE = new Halt(ST_INVALID_OPCODE)
export const STATIC_CHANGE = new Halt(ST_STATIC_CHANGE)

const EMPTY = new Uint8Array(0)
const INITIAL_MEMORY_BYTES = 1024

export class Frame {
  readonly depth: number
  code: Uint8Array = EMPTY
  analysis: CodeAnalysis = { jumpdests: EMPTY, pushes: [] }
  /** Address whose storage and balance the code runs with (40 hex digits) and as a word. */
  address = ''
  addressWord = 0n
  account: Account | undefined = undefined
  caller = 0n
  value = 0n
  data: Uint8Array = EMPTY
  isStatic = false
  gas = 0
  readonly stack: bigint[] = new Array<bigint>(STACK_LIMIT).fill(0n)
  sp = 0
  mem: Uint8Array = new Uint8Array(INITIAL_MEMORY_BYTES)
  view: DataView = new DataView(this.mem.buffer)
  memWords = 0
  memCost = 0
  /** Return data of the last call this frame made. */
  returnData: Uint8Array = EMPTY
  /** What RETURN or REVERT handed back. */
  output: Uint8Array = EMPTY

  constructor(depth: number) {
    this.depth = depth
  }

  /** Readies the pooled frame for a new call (memory left zeroed by the previous `release`). */
  enter(
    code: Uint8Array,
    analysis: CodeAnalysis,
    address: string,
    addressWord: bigint,
    account: Account,
    caller: bigint,
    value: bigint,
    data: Uint8Array,
    isStatic: boolean,
    gas: number,
  ): void {
    this.code = code
    this.analysis = analysis
    this.address = address
    this.addressWord = addressWord
    this.account = account
    this.caller = caller
    this.value = value
    this.data = data
    this.isStatic = isStatic
    this.gas = gas
    this.sp = 0
    this.memWords = 0
    this.memCost = 0
    this.returnData = EMPTY
    this.output = EMPTY
  }

  /** Zeroes the memory used, so the next call at this depth starts with clean memory. */
  release(): void {
    const used = this.memWords * 32
    if (used > 0) this.mem.fill(0, 0, Math.min(used, this.mem.length))
    this.data = EMPTY
    this.returnData = EMPTY
    this.account = undefined
  }
}

const frames: Frame[] = []

/** The pooled frame of `depth`. */
export function frameAt(depth: number): Frame {
  let f = frames[depth]
  if (f === undefined) {
    f = new Frame(depth)
    frames[depth] = f
  }
  return f
}

/**
 * Charges memory expansion to cover [offset, offset + length) and grows the buffer: the gas the
 * expansion costs (0 when length is 0 or memory is already that large). Throws OUT_OF_GAS when
 * the expansion alone costs more than the frame has, before allocating anything.
 */
export function expandMemory(f: Frame, memoryGas: number, quadDiv: number, offset: bigint, length: bigint): number {
  if (length === 0n) return 0
  if (offset > MAX_MEMORY_BYTES || length > MAX_MEMORY_BYTES) throw OUT_OF_GAS
  const end = Number(offset) + Number(length)
  const words = Math.floor((end + 31) / 32)
  if (words <= f.memWords) return 0
  const cost = words * memoryGas + Math.floor((words * words) / quadDiv)
  const delta = cost - f.memCost
  if (delta > f.gas) throw OUT_OF_GAS
  f.memWords = words
  f.memCost = cost
  const bytes = words * 32
  if (bytes > f.mem.length) {
    let size = f.mem.length * 2
    while (size < bytes) size *= 2
    const grown = new Uint8Array(size)
    grown.set(f.mem)
    f.mem = grown
    f.view = new DataView(grown.buffer)
  }
  return delta
}

/** Copies `length` bytes of `src` from `srcOffset` (zero past its end) into memory at `memOffset`. */
export function copyToMemory(f: Frame, memOffset: number, src: Uint8Array, srcOffset: bigint, length: number): void {
  const mem = f.mem
  if (srcOffset >= BigInt(src.length)) {
    mem.fill(0, memOffset, memOffset + length)
    return
  }
  const start = Number(srcOffset)
  const available = Math.min(length, src.length - start)
  mem.set(src.subarray(start, start + available), memOffset)
  if (available < length) mem.fill(0, memOffset + available, memOffset + length)
}

/** The 32-byte word of memory at `offset` (already expanded). */
export function readWord(f: Frame, offset: number): bigint {
  const v = f.view
  return (
    (v.getBigUint64(offset) << 192n) |
    (v.getBigUint64(offset + 8) << 128n) |
    (v.getBigUint64(offset + 16) << 64n) |
    v.getBigUint64(offset + 24)
  )
}

/** Writes `x` as a 32-byte big-endian word at `offset` (already expanded). */
export function writeWord(f: Frame, offset: number, x: bigint): void {
  const v = f.view
  // setBigUint64 keeps the low 64 bits of its argument
  v.setBigUint64(offset, x >> 192n)
  v.setBigUint64(offset + 8, x >> 128n)
  v.setBigUint64(offset + 16, x >> 64n)
  v.setBigUint64(offset + 24, x)
}

/** A 32-byte array as a word. */
export function bytes32ToWord(b: Uint8Array): bigint {
  return b.length === 32 ? bytesToWord(b) : bytesToWord(b.subarray(0, 32))
}
