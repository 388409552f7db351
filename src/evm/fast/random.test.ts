/**
 * Randomized differential test of the fast interpreter: programs built from random opcodes (with
 * plausible PUSH data: small offsets, addresses of the other programs, precompiles and an EOA, the
 * odd huge word), deployed, then called with several gas limits through the fast path and through
 * ethereumjs. Every answer (return data, gas used, error, revert flag) must be equal. Fixed seed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { differential, initCodeFor, openDiffChain, shown } from '../../../test/helpers/fastEvm.js'
import { prng } from '../../util/prng.js'

const PROGRAMS = 1500
const GAS_LIMITS = [23_000n, 60_000n, 400_000n]
const SEED = 0x1bec5

const SIMPLE = [
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
  0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45,
  0x46, 0x47, 0x48, 0x49, 0x4a, 0x50, 0x58, 0x59, 0x5a, 0x5f,
]

function generate(rand: () => number, targets: string[]): string {
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)] as T
  const byte = (n: number) => n.toString(16).padStart(2, '0')
  const push = (value: bigint | number) => {
    let h = BigInt(value).toString(16)
    if (h.length % 2 === 1) h = `0${h}`
    if (h === '00') return '5f'
    return byte(0x5f + h.length / 2) + h
  }
  const small = () => push(Math.floor(rand() * (rand() < 0.8 ? 96 : 2000)))
  const anyWord = (): string => {
    const r = rand()
    if (r < 0.5) return small()
    if (r < 0.7) return `73${pick(targets)}`
    if (r < 0.8) return push((1n << 255n) + BigInt(Math.floor(rand() * 1000)))
    if (r < 0.9) return push(BigInt(Math.floor(rand() * 2 ** 48)) ** 4n)
    // a bare PUSHn: its immediate swallows the code that follows
    return byte(0x60 + Math.floor(rand() * 32))
  }
  const parts: string[] = []
  for (let i = 0; i < 6; i++) parts.push(anyWord())
  const length = 10 + Math.floor(rand() * 50)
  const jumps: number[] = []
  for (let i = 0; i < length; i++) {
    const r = rand()
    if (r < 0.3) parts.push(byte(pick(SIMPLE)))
    else if (r < 0.42) parts.push(anyWord())
    else if (r < 0.5) parts.push(byte(0x80 + Math.floor(rand() * (rand() < 0.8 ? 4 : 16))))
    else if (r < 0.56) parts.push(byte(0x90 + Math.floor(rand() * (rand() < 0.8 ? 4 : 16))))
    else if (r < 0.62) parts.push(small() + small() + byte(pick([0x51, 0x52, 0x53, 0x52])))
    else if (r < 0.66) parts.push(small() + small() + small() + byte(pick([0x37, 0x39, 0x3e, 0x5e, 0x5e])))
    else if (r < 0.69) parts.push(small() + small() + '20')
    else if (r < 0.73) parts.push(push(Math.floor(rand() * 4)) + byte(pick([0x54, 0x5c])))
    else if (r < 0.77) parts.push(small() + push(Math.floor(rand() * 4)) + byte(pick([0x55, 0x5d])))
    else if (r < 0.8) parts.push(`73${pick(targets)}${byte(pick([0x31, 0x3b, 0x3f]))}`)
    else if (r < 0.81) parts.push(small() + small() + small() + `73${pick(targets)}3c`)
    else if (r < 0.9) {
      const op = pick([0xf1, 0xf1, 0xfa, 0xfa, 0xf4, 0xf2])
      const args = [small(), small(), small(), small()]
      if (op === 0xf1 || op === 0xf2) args.push(push(rand() < 0.7 ? 0 : 1))
      args.push(`73${pick(targets)}`)
      args.push(rand() < 0.5 ? '5a' : push(Math.floor(rand() * 40_000)))
      parts.push(args.join('') + byte(op))
    } else if (r < 0.92) parts.push(small() + small() + byte(0xa0 + Math.floor(rand() * 3)))
    else if (r < 0.95) {
      jumps.push(parts.length)
      parts.push('') // patched: PUSH2 target JUMP / JUMPI
    } else if (r < 0.97) parts.push('5b')
    else if (r < 0.975) parts.push(small() + small() + byte(pick([0xf3, 0xfd])))
    else if (r < 0.98) parts.push(byte(pick([0xfe, 0x0c, 0xf0, 0xff, 0x40])))
    else parts.push(push(Math.floor(rand() * 300)) + '4340' + '03')
  }
  parts.push('5f52', '602052', '5a604052', '60805ff3')
  // forward jumps (to a JUMPDEST or any byte), no loops: every program ends
  for (const at of jumps) {
    const land = at + 1 + Math.floor(rand() * Math.max(1, parts.length - at - 1))
    const target = parts.slice(0, land).join('').length / 2 + 4 + (rand() < 0.2 ? 1 : 0)
    if (land < parts.length && rand() < 0.7) parts[land] = `5b${parts[land]}`
    parts[at] = `61${target.toString(16).padStart(4, '0')}${rand() < 0.5 ? '56' : '57'}`
  }
  return parts.join('')
}

let dir: string
let ctx: Awaited<ReturnType<typeof openDiffChain>>
let programs: Uint8Array[] = []
const rand = prng(SEED)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-fast-rand-'))
  ctx = await openDiffChain(dir)
  const own = Array.from({ length: PROGRAMS }, (_, i) => Buffer.from(ctx.nextAddress(i)).toString('hex'))
  const others = [
    '0000000000000000000000000000000000000001',
    '0000000000000000000000000000000000000002',
    '0000000000000000000000000000000000000004',
    '0000000000000000000000000000000000000005',
    '0000000000000000000000000000000000000009',
    '77'.repeat(20),
    Buffer.from(ctx.from).toString('hex'),
  ]
  const codes: string[] = []
  for (let i = 0; i < PROGRAMS; i++) {
    const targets = [...others, ...Array.from({ length: 6 }, () => own[Math.floor(rand() * PROGRAMS)] as string)]
    codes.push(initCodeFor(generate(rand, targets)))
  }
  programs = await ctx.deploy(codes)
}, 600_000)

afterAll(async () => {
  await ctx?.chain.db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('fast interpreter on random programs', () => {
  it(`matches ethereumjs on ${PROGRAMS} programs × ${GAS_LIMITS.length} gas limits`, async () => {
    let answered = 0
    let bailed = 0
    const errors = new Map<string, number>()
    for (let i = 0; i < programs.length; i++) {
      const data = Uint8Array.from({ length: Math.floor(rand() * 70) }, () =>
        rand() < 0.5 ? 0 : Math.floor(rand() * 256),
      )
      const withValue = rand() < 0.2
      for (const gas of GAS_LIMITS) {
        const req = { to: programs[i] as Uint8Array, data, ...(withValue ? { from: ctx.from, value: 1000n } : {}) }
        const d = await differential(ctx.env(), req, gas)
        expect({ program: i, gas, ...shown(d.fast) }).toEqual({ program: i, gas, ...shown(d.slow) })
        if (d.answered) answered++
        if (d.bailReason !== undefined) bailed++
        const e = d.slow.outcome?.error ?? d.slow.thrown ?? 'ok'
        errors.set(e, (errors.get(e) ?? 0) + 1)
      }
    }
    console.log(
      `random programs: ${answered} answered by the fast path, ${bailed} bailed out; outcomes`,
      Object.fromEntries(errors),
    )
    // the generator rarely emits CREATE / SELFDESTRUCT: nearly everything must run on the fast path
    expect(answered).toBeGreaterThan(PROGRAMS * GAS_LIMITS.length * 0.8)
  }, 600_000)
})
