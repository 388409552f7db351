/**
 * Opcodes of the fast interpreter that read or write state: BALANCE, EXTCODESIZE, EXTCODEHASH,
 * EXTCODECOPY (EIP-2929 account access), SLOAD and SSTORE (EIP-2929 slot access, EIP-2200 costs
 * and the 2300-gas sentry), and LOG (costs only: eth_call returns no logs). Each is called with
 * the frame's gas and stack pointer synced into the frame, and leaves them there.
 */
import { copyToMemory, expandMemory, type Frame, OUT_OF_GAS, STACK_UNDERFLOW } from './frame.js'
import type { CallContext } from './interpreter.js'
import { addressKey, BailOut, bytesToWord, slotKey, type World } from './world.js'

const ADDRESS_MASK = (1n << 160n) - 1n

/** The EIP-2929 cost of touching `key` (cold 2600 / warm 100), warming it. */
export function accessAccount(ctx: CallContext, key: string): number {
  return ctx.world.warmAddress(key) ? ctx.rules.coldAccount : ctx.rules.warmRead
}

/** ethereumjs reads code starting 0xef00 (EOF) as the two bytes 0xef00: not done here. */
function refuseEof(code: Uint8Array): void {
  if (code.length >= 2 && code[0] === 0xef && code[1] === 0x00) throw new BailOut('EOF code read')
}

/** BALANCE, EXTCODESIZE, EXTCODEHASH of the address word `a`. */
export function opAccountRead(ctx: CallContext, f: Frame, op: number, a: bigint): bigint {
  const key = addressKey(a & ADDRESS_MASK)
  const gas = f.gas - (ctx.rules.fee[op] as number) - accessAccount(ctx, key)
  if (gas < 0) throw OUT_OF_GAS
  f.gas = gas
  const world: World = ctx.world
  const account = world.account(key)
  if (op === 0x31) return account.balance
  if (op === 0x3b) {
    const code = world.code(account)
    refuseEof(code)
    return BigInt(code.length)
  }
  const code = world.code(account)
  refuseEof(code)
  if (account.isEmpty()) return 0n
  return bytesToWord(account.codeHash)
}

/** EXTCODECOPY(address, memOffset, codeOffset, length). */
export function opExtCodeCopy(ctx: CallContext, f: Frame): void {
  const s = f.stack
  const sp = f.sp
  const key = addressKey((s[sp - 1] as bigint) & ADDRESS_MASK)
  const memOff = s[sp - 2] as bigint
  const codeOff = s[sp - 3] as bigint
  const len = s[sp - 4] as bigint
  const rules = ctx.rules
  let cost = (rules.fee[0x3c] as number) + expandMemory(f, rules.memoryGas, rules.quadDiv, memOff, len)
  cost += accessAccount(ctx, key)
  if (len !== 0n) cost += rules.copyGas * Math.floor((Number(len) + 31) / 32)
  if (cost > f.gas) throw OUT_OF_GAS
  f.gas -= cost
  f.sp = sp - 4
  if (len !== 0n) {
    const code = ctx.world.code(ctx.world.account(key))
    refuseEof(code)
    copyToMemory(f, Number(memOff), code, codeOff, Number(len))
  }
}

export function opSload(ctx: CallContext, f: Frame, slot: bigint): bigint {
  const key = slotKey(slot)
  const world = ctx.world
  const cost =
    (ctx.rules.fee[0x54] as number) +
    (world.warmSlot(f.address, f.address + key) ? ctx.rules.coldSload : ctx.rules.warmRead)
  if (cost > f.gas) throw OUT_OF_GAS
  f.gas -= cost
  return world.storage(f.account as NonNullable<Frame['account']>, key)
}

/** SSTORE's gas (EIP-2200 with EIP-2929's costs, as ethereumjs computes it), then the write. */
export function opSstore(ctx: CallContext, f: Frame, slot: bigint, value: bigint): void {
  const rules = ctx.rules
  const world = ctx.world
  if (f.gas <= rules.sstoreSentry) throw OUT_OF_GAS
  const account = f.account as NonNullable<Frame['account']>
  const key = slotKey(slot)
  const warmKey = f.address + key
  const current = world.storage(account, key)
  let cost = rules.fee[0x55] as number
  if (current === value) {
    cost += world.isWarmSlot(warmKey) ? rules.warmRead : rules.sstoreNoop
  } else {
    const original = world.original(account, key)
    if (original === current) cost += original === 0n ? rules.sstoreInit : rules.sstoreClean
    else cost += rules.sstoreDirty
  }
  if (world.warmSlot(f.address, warmKey)) cost += rules.coldSload
  if (cost > f.gas) throw OUT_OF_GAS
  f.gas -= cost
  world.setStorage(account, key, value)
}

/** LOG0..LOG4: memory, topic and data costs; the log itself is dropped. */
export function opLog(ctx: CallContext, f: Frame, topics: number): void {
  const s = f.stack
  const sp = f.sp
  const off = s[sp - 1] as bigint
  const len = s[sp - 2] as bigint
  const rules = ctx.rules
  let cost = (rules.fee[0xa0 + topics] as number) + expandMemory(f, rules.memoryGas, rules.quadDiv, off, len)
  cost += rules.logTopicGas * topics + Number(len) * rules.logDataGas
  if (cost > f.gas) throw OUT_OF_GAS
  f.gas -= cost
  if (sp < 2 + topics) throw STACK_UNDERFLOW
  f.sp = sp - 2 - topics
}
