import { describe, expect, it } from 'vitest'
import { ethereumjsInterpreter } from './patches.js'

type Scan = (
  this: unknown,
  code: Uint8Array,
) => { jumps: Uint8Array; pushes: Record<number, bigint>; opcodesCached: unknown[] }
const entry = import.meta.resolve('@ethereumjs/evm')
const { Interpreter } = (await import(new URL('./interpreter.js', entry).href)) as {
  Interpreter: { prototype: { _getValidJumpDestinations: Scan } }
}
const original = (await ethereumjsInterpreter())._getValidJumpDestinations as Scan

/** A stand-in `this` for the scan: an opcode table and the lookup ethereumjs uses. */
function interp(table: unknown[]) {
  return {
    _evm: { _opcodeMap: table },
    common: { isActivatedEIP: () => false },
    lookupOpInfo(op: number) {
      return table[op]
    },
  }
}

/** 100 bytes: PUSH2 0x5b5b (JUMPDESTs inside a push do not count), JUMPDEST, PUSH1 3, JUMP, … */
const CODE = new Uint8Array(Array.from({ length: 25 }, () => [0x61, 0x5b, 0x5b, 0x5b]).flat())

describe('jump analysis cache', () => {
  it('answers what ethereumjs’ own scan answers, once per code and opcode table', async () => {
    const cached = Interpreter.prototype._getValidJumpDestinations
    expect(cached).not.toBe(original)
    const tableA = Array.from({ length: 256 }, (_, i) => ({ op: i, table: 'A' }))
    const tableB = Array.from({ length: 256 }, (_, i) => ({ op: i, table: 'B' }))
    const want = original.call(interp(tableA), CODE)
    expect([...want.jumps].filter((j) => j === 1).length).toBe(25)
    const first = cached.call(interp(tableA), CODE)
    expect(first).toEqual(want)
    // the same bytes, as another object: the same analysis
    expect(cached.call(interp(tableA), CODE.slice())).toBe(first)
    expect(cached.call(interp(tableA), CODE)).toBe(first)
    // another opcode table (another fork): scanned again, with that table's entries
    const other = cached.call(interp(tableB), CODE)
    expect(other).not.toBe(first)
    expect(other).toEqual(original.call(interp(tableB), CODE))
    // other bytes: their own analysis
    const changed = CODE.slice()
    changed[0] = 0x5b
    expect(cached.call(interp(tableA), changed)).toEqual(original.call(interp(tableA), changed))
  })
})
