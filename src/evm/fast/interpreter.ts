/**
 * The opcode loop of the fast interpreter: one frame's code run to STOP, RETURN, REVERT or an
 * exceptional halt, with ethereumjs' order of checks (so the same error is reported): for an
 * opcode with only a static fee, the fee is charged first and the stack checked after; for an
 * opcode with dynamic gas, the stack is checked (as ethereumjs' gas handler peeks it), then the
 * whole cost charged at once, then the operation runs. Opcodes with state access or calls are in
 * ops.ts and calls.ts. Gas is a number (a fast call carries at most MAX_FAST_GAS).
 */
import type { EVM } from '@ethereumjs/evm'
import type { ChainStore } from '../../chain/store.js'
import { checkEvmDeadline, DEADLINE_CHECK_OPS } from '../deadline.js'
import { keccak256 } from '../../util/crypto.js'
import { binary, byteLength, exp } from './arith.js'
import { opCall } from './calls.js'
import {
  bytes32ToWord,
  copyToMemory,
  expandMemory,
  type Frame,
  Halt,
  INVALID_JUMP,
  INVALID_OPCODE,
  OUT_OF_GAS,
  readWord,
  ST_OK,
  ST_REVERT,
  STACK_LIMIT,
  STACK_OVERFLOW,
  STACK_UNDERFLOW,
  STATIC_CHANGE,
  writeWord,
} from './frame.js'
import { opAccountRead, opExtCodeCopy, opLog, opSload, opSstore } from './ops.js'
import { OP_INVALID, OP_RUN, type Rules } from './rules.js'
import { BailOut, slotKey, type World } from './world.js'

/** The block a call runs in, as words. */
export interface BlockEnv {
  number: bigint
  timestamp: bigint
  coinbase: bigint
  prevRandao: bigint
  gasLimit: bigint
  /** undefined: the header has none (BASEFEE bails out, as ethereumjs throws). */
  baseFee: bigint | undefined
  blobBaseFee: bigint | undefined
  chainId: bigint
}

/** Everything a call's frames share. */
export interface CallContext {
  world: World
  rules: Rules
  env: BlockEnv
  origin: bigint
  evm: EVM
  store: ChainStore
}

const MAX = (1n << 256n) - 1n
/** Blocks BLOCKHASH can see back (geth and ethereumjs). */
const BLOCKHASH_WINDOW = 256n

/** Opcodes whose gas ethereumjs computes in a dynamic handler (fee charged with the rest). */
const DYNAMIC = new Uint8Array(256)
for (const op of [
  0x0a, 0x20, 0x31, 0x37, 0x39, 0x3b, 0x3c, 0x3e, 0x3f, 0x51, 0x52, 0x53, 0x54, 0x55, 0x5e, 0xa0, 0xa1, 0xa2, 0xa3,
  0xa4, 0xf1, 0xf2, 0xf3, 0xf4, 0xfa, 0xfd,
])
  DYNAMIC[op] = 1

let opsUntilDeadlineCheck = DEADLINE_CHECK_OPS

function words(length: bigint): number {
  return Math.floor((Number(length) + 31) / 32)
}

/**
 * Runs `f` (entered) to its end: ST_OK or ST_REVERT with f.output, or the status of an exceptional
 * halt (all its gas is then gone). f.gas holds the gas left.
 */
export function runFrame(ctx: CallContext, f: Frame): number {
  try {
    return execute(ctx, f)
  } catch (e) {
    if (e instanceof Halt) {
      f.gas = 0
      return e.status
    }
    throw e
  }
}

function execute(ctx: CallContext, f: Frame): number {
  const rules = ctx.rules
  const fee = rules.fee
  const kind = rules.kind
  const code = f.code
  const n = code.length
  const { jumpdests, pushes } = f.analysis
  const s = f.stack
  let sp = 0
  let pc = 0
  let gas = f.gas
  while (pc < n) {
    const op = code[pc] as number
    if (--opsUntilDeadlineCheck === 0) {
      opsUntilDeadlineCheck = DEADLINE_CHECK_OPS
      checkEvmDeadline()
    }
    const k = kind[op] as number
    if (k !== OP_RUN) {
      if (k === OP_INVALID) throw INVALID_OPCODE
      throw new BailOut(`opcode 0x${op.toString(16)}`)
    }
    if (DYNAMIC[op] === 0) {
      gas -= fee[op] as number
      if (gas < 0) throw OUT_OF_GAS
    }
    pc++
    if (op >= 0x60 && op <= 0x7f) {
      if (sp >= STACK_LIMIT) throw STACK_OVERFLOW
      s[sp++] = pushes[pc - 1] as bigint
      pc += op - 0x5f
      continue
    }
    if (op >= 0x80 && op <= 0x8f) {
      const d = op - 0x7f
      if (sp < d) throw STACK_UNDERFLOW
      if (sp >= STACK_LIMIT) throw STACK_OVERFLOW
      s[sp] = s[sp - d] as bigint
      sp++
      continue
    }
    if (op >= 0x90 && op <= 0x9f) {
      const d = op - 0x8f
      if (sp <= d) throw STACK_UNDERFLOW
      const t = s[sp - 1] as bigint
      s[sp - 1] = s[sp - 1 - d] as bigint
      s[sp - 1 - d] = t
      continue
    }
    switch (op) {
      case 0x00:
        f.gas = gas
        f.output = new Uint8Array(0)
        return ST_OK
      case 0x01:
      case 0x02:
      case 0x03:
      case 0x04:
      case 0x05:
      case 0x06:
      case 0x07:
      case 0x0b:
      case 0x10:
      case 0x11:
      case 0x12:
      case 0x13:
      case 0x14:
      case 0x16:
      case 0x17:
      case 0x18:
      case 0x1a:
      case 0x1b:
      case 0x1c:
      case 0x1d: {
        if (sp < 2) throw STACK_UNDERFLOW
        const a = s[--sp] as bigint
        const b = s[sp - 1] as bigint
        s[sp - 1] = binary(op, a, b)
        break
      }
      case 0x08:
      case 0x09: {
        if (sp < 3) throw STACK_UNDERFLOW
        const a = s[--sp] as bigint
        const b = s[--sp] as bigint
        const m = s[sp - 1] as bigint
        s[sp - 1] = m === 0n ? 0n : op === 0x08 ? (a + b) % m : (a * b) % m
        break
      }
      case 0x0a: {
        if (sp < 2) throw STACK_UNDERFLOW
        const e = s[sp - 2] as bigint
        gas -= (fee[op] as number) + (e === 0n ? 0 : rules.expByteGas * byteLength(e))
        if (gas < 0) throw OUT_OF_GAS
        const base = s[--sp] as bigint
        s[sp - 1] = exp(base, e)
        break
      }
      case 0x15:
        if (sp < 1) throw STACK_UNDERFLOW
        s[sp - 1] = s[sp - 1] === 0n ? 1n : 0n
        break
      case 0x19:
        if (sp < 1) throw STACK_UNDERFLOW
        s[sp - 1] = MAX ^ (s[sp - 1] as bigint)
        break
      case 0x20: {
        if (sp < 2) throw STACK_UNDERFLOW
        const off = s[sp - 1] as bigint
        const len = s[sp - 2] as bigint
        f.gas = gas
        gas -=
          (fee[op] as number) +
          expandMemory(f, rules.memoryGas, rules.quadDiv, off, len) +
          rules.keccakWordGas * words(len)
        if (gas < 0) throw OUT_OF_GAS
        sp--
        const o = len === 0n ? 0 : Number(off)
        s[sp - 1] = bytes32ToWord(keccak256(f.mem.subarray(o, o + Number(len))))
        break
      }
      case 0x30:
      case 0x32:
      case 0x33:
      case 0x34:
      case 0x36:
      case 0x38:
      case 0x3a:
      case 0x3d:
      case 0x41:
      case 0x42:
      case 0x43:
      case 0x44:
      case 0x45:
      case 0x46:
      case 0x47:
      case 0x48:
      case 0x4a:
      case 0x58:
      case 0x59:
      case 0x5a:
      case 0x5f:
        if (sp >= STACK_LIMIT) throw STACK_OVERFLOW
        s[sp++] = context(ctx, f, op, pc, gas)
        break
      case 0x31:
      case 0x3b:
      case 0x3f:
        if (sp < 1) throw STACK_UNDERFLOW
        f.gas = gas
        s[sp - 1] = opAccountRead(ctx, f, op, s[sp - 1] as bigint)
        gas = f.gas
        break
      case 0x35: {
        if (sp < 1) throw STACK_UNDERFLOW
        const pos = s[sp - 1] as bigint
        const data = f.data
        if (pos >= BigInt(data.length)) {
          s[sp - 1] = 0n
        } else {
          const i = Number(pos)
          let w = 0n
          for (let j = 0; j < 32; j++) w = (w << 8n) | BigInt(i + j < data.length ? (data[i + j] as number) : 0)
          s[sp - 1] = w
        }
        break
      }
      case 0x37:
      case 0x39:
      case 0x3e: {
        if (sp < 3) throw STACK_UNDERFLOW
        const memOff = s[sp - 1] as bigint
        const srcOff = s[sp - 2] as bigint
        const len = s[sp - 3] as bigint
        const src = op === 0x37 ? f.data : op === 0x39 ? code : f.returnData
        if (op === 0x3e && srcOff + len > BigInt(src.length)) throw OUT_OF_GAS
        f.gas = gas
        gas -=
          (fee[op] as number) +
          expandMemory(f, rules.memoryGas, rules.quadDiv, memOff, len) +
          (len === 0n ? 0 : rules.copyGas * words(len))
        if (gas < 0) throw OUT_OF_GAS
        sp -= 3
        if (len !== 0n) copyToMemory(f, Number(memOff), src, srcOff, Number(len))
        break
      }
      case 0x3c:
        if (sp < 4) throw STACK_UNDERFLOW
        f.gas = gas
        f.sp = sp
        opExtCodeCopy(ctx, f)
        gas = f.gas
        sp = f.sp
        break
      case 0x40: {
        if (sp < 1) throw STACK_UNDERFLOW
        s[sp - 1] = blockHash(ctx, s[sp - 1] as bigint)
        break
      }
      case 0x49:
        // BLOBHASH: a call carries no blobs
        if (sp < 1) throw STACK_UNDERFLOW
        s[sp - 1] = 0n
        break
      case 0x50:
        if (sp < 1) throw STACK_UNDERFLOW
        sp--
        break
      case 0x51:
      case 0x52:
      case 0x53: {
        if (sp < 1) throw STACK_UNDERFLOW
        const off = s[sp - 1] as bigint
        f.gas = gas
        gas -= (fee[op] as number) + expandMemory(f, rules.memoryGas, rules.quadDiv, off, op === 0x53 ? 1n : 32n)
        if (gas < 0) throw OUT_OF_GAS
        if (op === 0x51) {
          s[sp - 1] = readWord(f, Number(off))
        } else {
          if (sp < 2) throw STACK_UNDERFLOW
          const v = s[sp - 2] as bigint
          sp -= 2
          if (op === 0x52) writeWord(f, Number(off), v)
          else f.mem[Number(off)] = Number(v & 0xffn)
        }
        break
      }
      case 0x54:
        if (sp < 1) throw STACK_UNDERFLOW
        f.gas = gas
        s[sp - 1] = opSload(ctx, f, s[sp - 1] as bigint)
        gas = f.gas
        break
      case 0x55:
        if (f.isStatic) throw STATIC_CHANGE
        if (sp < 2) throw STACK_UNDERFLOW
        f.gas = gas
        opSstore(ctx, f, s[sp - 1] as bigint, s[sp - 2] as bigint)
        gas = f.gas
        sp -= 2
        break
      case 0x56: {
        if (sp < 1) throw STACK_UNDERFLOW
        const dest = s[--sp] as bigint
        if (dest >= BigInt(n) || jumpdests[Number(dest)] !== 1) throw INVALID_JUMP
        pc = Number(dest)
        break
      }
      case 0x57: {
        if (sp < 2) throw STACK_UNDERFLOW
        const dest = s[--sp] as bigint
        const cond = s[--sp] as bigint
        if (cond !== 0n) {
          if (dest >= BigInt(n) || jumpdests[Number(dest)] !== 1) throw INVALID_JUMP
          pc = Number(dest)
        }
        break
      }
      case 0x5b:
        break
      case 0x5c: {
        if (sp < 1) throw STACK_UNDERFLOW
        s[sp - 1] = ctx.world.transient(f.address + slotKey(s[sp - 1] as bigint))
        break
      }
      case 0x5d: {
        if (f.isStatic) throw STATIC_CHANGE
        if (sp < 2) throw STACK_UNDERFLOW
        ctx.world.setTransient(f.address + slotKey(s[sp - 1] as bigint), s[sp - 2] as bigint)
        sp -= 2
        break
      }
      case 0x5e: {
        if (sp < 3) throw STACK_UNDERFLOW
        const dst = s[sp - 1] as bigint
        const src = s[sp - 2] as bigint
        const len = s[sp - 3] as bigint
        f.gas = gas
        let cost = (fee[op] as number) + 3 * words(len)
        cost += expandMemory(f, rules.memoryGas, rules.quadDiv, src, len)
        cost += expandMemory(f, rules.memoryGas, rules.quadDiv, dst, len)
        gas -= cost
        if (gas < 0) throw OUT_OF_GAS
        sp -= 3
        if (len !== 0n) {
          const from = Number(src)
          f.mem.copyWithin(Number(dst), from, from + Number(len))
        }
        break
      }
      case 0xa0:
      case 0xa1:
      case 0xa2:
      case 0xa3:
      case 0xa4:
        if (f.isStatic) throw STATIC_CHANGE
        if (sp < 2) throw STACK_UNDERFLOW
        f.gas = gas
        f.sp = sp
        opLog(ctx, f, op - 0xa0)
        gas = f.gas
        sp = f.sp
        break
      case 0xf1:
      case 0xf2:
      case 0xf4:
      case 0xfa:
        f.gas = gas
        f.sp = sp
        opCall(ctx, f, op)
        gas = f.gas
        sp = f.sp
        break
      case 0xf3:
      case 0xfd: {
        if (sp < 2) throw STACK_UNDERFLOW
        const off = s[sp - 1] as bigint
        const len = s[sp - 2] as bigint
        f.gas = gas
        gas -= (fee[op] as number) + expandMemory(f, rules.memoryGas, rules.quadDiv, off, len)
        if (gas < 0) throw OUT_OF_GAS
        const o = len === 0n ? 0 : Number(off)
        f.output = f.mem.slice(o, o + Number(len))
        f.gas = gas
        return op === 0xf3 ? ST_OK : ST_REVERT
      }
      default:
        throw new BailOut(`opcode 0x${op.toString(16)} not dispatched`)
    }
  }
  f.gas = gas
  f.output = new Uint8Array(0)
  return ST_OK
}

/** Opcodes that push a value of the frame, the block or the gas counter. */
function context(ctx: CallContext, f: Frame, op: number, pc: number, gas: number): bigint {
  const env = ctx.env
  switch (op) {
    case 0x30:
      return f.addressWord
    case 0x32:
      return ctx.origin
    case 0x33:
      return f.caller
    case 0x34:
      return f.value
    case 0x36:
      return BigInt(f.data.length)
    case 0x38:
      return BigInt(f.code.length)
    case 0x3a:
      // GASPRICE: a fee-less call
      return 0n
    case 0x3d:
      return BigInt(f.returnData.length)
    case 0x41:
      return env.coinbase
    case 0x42:
      return env.timestamp
    case 0x43:
      return env.number
    case 0x44:
      return env.prevRandao
    case 0x45:
      return env.gasLimit
    case 0x46:
      return env.chainId
    case 0x47:
      return (f.account as NonNullable<Frame['account']>).balance
    case 0x48:
      if (env.baseFee === undefined) throw new BailOut('no base fee')
      return env.baseFee
    case 0x4a:
      if (env.blobBaseFee === undefined) throw new BailOut('no blob base fee')
      return env.blobBaseFee
    case 0x58:
      return BigInt(pc - 1)
    case 0x59:
      return BigInt(f.memWords * 32)
    case 0x5a:
      return BigInt(gas)
    default:
      // PUSH0
      return 0n
  }
}

function blockHash(ctx: CallContext, number: bigint): bigint {
  const diff = ctx.env.number - number
  if (diff > BLOCKHASH_WINDOW || diff <= 0n) return 0n
  const hash = ctx.store.getHashByNumber(number)
  if (hash === undefined) throw new BailOut(`no block ${number}`)
  return bytes32ToWord(hash)
}
