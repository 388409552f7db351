/**
 * Differential tests of the fast interpreter at its edges: EIP-7702 delegated accounts (as call
 * target, as EXTCODE* / BALANCE target, as sender), forks it does not implement (Shanghai, Osaka:
 * it must stay out and the answer still be right), the EVM deadline (an endless loop stops with the
 * same timeout as on ethereumjs, in bounded time) and value transfers (funded and unfunded senders,
 * nested CALL / CALLCODE with value beyond the balance, to EOAs, new accounts, precompiles).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBlockHeader } from '@ethereumjs/block'
import { createTx } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes, eoaCode7702SignAuthorization, hexToBytes } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChainCommon, type GenesisJson } from '../../chain/common.js'
import type { ChainBlock } from '../../chain/store.js'
import { devAccounts } from '../../config/accounts.js'
import { defaultConfig } from '../../config/defaults.js'
import { buildGenesis as buildPresetGenesis } from '../../config/genesis.js'
import { type CallRequest, call, type Env } from '../call.js'
import { withEvmDeadline } from '../deadline.js'
import { fastCallStats } from './index.js'
import { validateTransaction } from '../../../test/helpers/chain.js'
import { differential, initCodeFor, openDiffChain, shown } from '../../../test/helpers/fastEvm.js'

const accounts = devAccounts(10)
const dev = (i: number) => hexToBytes((accounts[i] as { address: string }).address as `0x${string}`)
const keyOf = (i: number) => hexToBytes((accounts[i] as { privateKey: string }).privateKey as `0x${string}`)
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const bytes = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'))
const word = (x: bigint | Uint8Array) => (typeof x === 'bigint' ? x.toString(16) : hex(x)).padStart(64, '0')
const IDENTITY = bytes(`${'00'.repeat(19)}04`)

/** Raw runtime programs (hex). */
const RAW = {
  /** [EXTCODESIZE, EXTCODEHASH, first 32 code bytes (EXTCODECOPY), BALANCE] of calldata[0:32]. */
  extInfo: '5f35803b5f52803f602052803160605260205f6040833c60805ff3',
  /** CALL / STATICCALL / DELEGATECALL calldata[0:32], no data: [success, RETURNDATASIZE]. */
  callInfo: '5f5f5f5f5f5f355af15f523d60205260405ff3',
  staticInfo: '5f5f5f5f5f355afa5f523d60205260405ff3',
  delegateInfo: '5f5f5f5f5f355af45f523d60205260405ff3',
  /** [SELFBALANCE, BALANCE(CALLER), CALLVALUE, ADDRESS]. */
  balances: '475f523331602052346040523060605260805ff3',
  /** CALL (or CALLCODE) calldata[0:32] with value calldata[32:64]: [success, SELFBALANCE, BALANCE(to)]. */
  forward: '5f5f5f5f6020355f355af15f52476020525f353160405260605ff3',
  forwardCode: '5f5f5f5f6020355f355af25f52476020525f353160405260605ff3',
  /** JUMPDEST PUSH0 JUMP: forever. */
  loop: '5b5f56',
  /** TSTORE / TLOAD (Cancun) and PUSH0 (Shanghai). */
  transient: '602a5f5d5f5c5f5260205ff3',
  /** CLZ (Osaka) of 0xff. */
  clz: '60ff1e5f5260205ff3',
}
type Name = keyof typeof RAW

let dir: string
let ctx: Awaited<ReturnType<typeof openDiffChain>>
const at = {} as Record<Name | 'funded' | 'fundedCode', Uint8Array>
/** EIP-7702 accounts: delegated to `balances`, to an EOA, to the identity precompile, to another delegated account. */
const delegated = { toCode: dev(4), toEoa: dev(5), toPrecompile: dev(6), toDelegated: dev(7) }

async function authorize(pairs: [number, Uint8Array][]): Promise<void> {
  const { chain } = ctx
  const chainId = bigIntToUnpaddedBytes(chain.common.chainId())
  const authorizationList = pairs.map(([who, target]) =>
    eoaCode7702SignAuthorization([chainId, target, new Uint8Array(0)], keyOf(who)),
  )
  const tx = createTx(
    {
      type: 4,
      nonce: 0n,
      to: dev(9),
      gasLimit: 500_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      authorizationList,
    },
    { common: chain.common },
  ).sign(keyOf(8))
  const { included } = await chain.builder.build(
    [await validateTransaction(tx.serialize(), chain.admission())],
    chain.store.head.header.timestamp + 1n,
  )
  expect(included.length).toBe(1)
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-fast-edges-'))
  ctx = await openDiffChain(dir)
  const names = Object.keys(RAW) as Name[]
  const addrs = await ctx.deploy(names.map((n) => initCodeFor(RAW[n])))
  for (const [i, n] of names.entries()) at[n] = addrs[i] as Uint8Array
  ;[at.funded, at.fundedCode] = (await ctx.deploy([initCodeFor(RAW.forward), initCodeFor(RAW.forwardCode)], 1000n)) as [
    Uint8Array,
    Uint8Array,
  ]
  await authorize([
    [4, at.balances],
    [5, dev(3)],
    [6, IDENTITY],
    [7, dev(4)],
  ])
}, 120_000)

afterAll(async () => {
  await ctx?.chain.db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs every case both ways at `env`: the cases the fast path answered, and those it left to ethereumjs (not those refused before it). */
async function compareAll(
  cases: [string, CallRequest, bigint][],
  env: Env = ctx.env(),
): Promise<{ answered: string[]; bailed: string[] }> {
  const answered: string[] = []
  const bailed: string[] = []
  for (const [what, req, gas] of cases) {
    const d = await differential(env, req, gas)
    expect({ what, ...shown(d.fast) }).toEqual({ what, ...shown(d.slow) })
    if (d.answered) answered.push(what)
    else if (d.fast.thrown === undefined) bailed.push(what)
  }
  return { answered, bailed }
}

describe('EIP-7702 delegated accounts', () => {
  it('has the designators in the state', async () => {
    const d = await differential(ctx.env(), { to: at.extInfo, data: bytes(word(delegated.toCode)) }, 100_000n)
    const ret = hex(d.slow.outcome?.returnValue ?? new Uint8Array())
    expect(ret.slice(0, 64)).toBe(word(23n))
    expect(ret.slice(128, 128 + 46)).toBe(`ef0100${hex(at.balances)}`)
  })

  it('as the target of the message: bails out, answers right', async () => {
    const cases: [string, CallRequest, bigint][] = []
    for (const [name, a] of Object.entries(delegated)) {
      cases.push([`call ${name}`, { to: a, data: bytes('c0ffee') }, 200_000n])
      cases.push([`call ${name} with value`, { from: ctx.from, to: a, value: 7n }, 200_000n])
      cases.push([`call ${name} at intrinsic gas`, { to: a }, 21_000n])
    }
    const { answered } = await compareAll(cases)
    expect(answered).toEqual([])
  })

  it('as the target of CALL, STATICCALL, DELEGATECALL: bails out, answers right', async () => {
    const cases: [string, CallRequest, bigint][] = []
    for (const [name, a] of Object.entries(delegated)) {
      for (const p of ['callInfo', 'staticInfo', 'delegateInfo'] as const)
        cases.push([`${p} ${name}`, { to: at[p], data: bytes(word(a)) }, 200_000n])
    }
    const { answered } = await compareAll(cases)
    expect(answered).toEqual([])
  })

  it('as the target of EXTCODESIZE, EXTCODEHASH, EXTCODECOPY, BALANCE: answered exactly', async () => {
    const cases: [string, CallRequest, bigint][] = []
    for (const [name, a] of Object.entries(delegated)) {
      cases.push([`extInfo ${name}`, { to: at.extInfo, data: bytes(word(a)) }, 200_000n])
      cases.push([
        `extInfo ${name} short of gas`,
        { to: at.extInfo, data: bytes(word(a)) },
        21_000n + 16n * 32n + 2_700n,
      ])
    }
    const { bailed } = await compareAll(cases)
    expect(bailed).toEqual([])
  })

  it('as the sender: answered exactly (its nonce is bumped, its balance pays the value)', async () => {
    const cases: [string, CallRequest, bigint][] = []
    for (const [name, a] of Object.entries(delegated)) {
      cases.push([`${name} calls balances`, { from: a, to: at.balances }, 200_000n])
      cases.push([`${name} calls balances with value`, { from: a, to: at.balances, value: 10n ** 18n }, 200_000n])
      cases.push([
        `${name} forwards value to an EOA`,
        { from: a, to: at.funded, data: bytes(word(dev(1)) + word(5n)) },
        200_000n,
      ])
    }
    const { bailed } = await compareAll(cases)
    expect(bailed).toEqual([])
  })
})

/** The head block as seen under another fork of the same chain (same state root). */
function headUnder(common: ReturnType<typeof createChainCommon>, drop: string[]): ChainBlock {
  const head = ctx.chain.store.head
  const fields = { ...head.header.toJSON() } as Record<string, unknown>
  for (const f of drop) delete fields[f]
  const header = createBlockHeader(fields, { common, skipConsensusFormatValidation: true })
  return { ...head, header }
}

describe('forks the fast path does not implement', () => {
  const programs = (): [string, CallRequest, bigint][] => [
    ['transient', { to: at.transient }, 100_000n],
    ['clz', { to: at.clz }, 100_000n],
    ['balances', { from: ctx.from, to: at.balances, value: 3n }, 100_000n],
    ['forward', { to: at.funded, data: bytes(word(dev(1)) + word(5n)) }, 100_000n],
    ['extInfo', { to: at.extInfo, data: bytes(word(delegated.toCode)) }, 100_000n],
  ]

  it('Shanghai: stays out, answers right (no TSTORE)', async () => {
    const common = ctx.chain.common.copy()
    common.setHardfork('shanghai')
    const env = {
      ...ctx.env(),
      block: headUnder(common, ['blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash']),
    }
    const { answered } = await compareAll(programs(), env)
    expect(answered).toEqual([])
    const d = await differential(env, { to: at.transient }, 100_000n)
    expect(d.slow.outcome?.error).toBe('invalid opcode')
  })

  it('Cancun: answered', async () => {
    const common = ctx.chain.common.copy()
    common.setHardfork('cancun')
    const env = { ...ctx.env(), block: headUnder(common, ['requestsHash']) }
    const { bailed } = await compareAll(programs(), env)
    expect(bailed).toEqual([])
  })

  it('Osaka: stays out, answers right (CLZ exists)', async () => {
    const config = { ...defaultConfig('dev'), datadir: dir }
    const genesis = buildPresetGenesis(config, [`0x${hex(dev(2))}`]) as unknown as GenesisJson & {
      config: Record<string, unknown>
    }
    genesis.config.osakaTime = 0
    const common = createChainCommon(genesis)
    expect(common.hardfork()).toBe('osaka')
    const env = { ...ctx.env(), block: headUnder(common, []) }
    const { answered } = await compareAll(programs(), env)
    expect(answered).toEqual([])
    const d = await differential(env, { to: at.clz }, 100_000n)
    expect(hex(d.slow.outcome?.returnValue ?? new Uint8Array())).toBe(word(248n))
  })
})

describe('the EVM deadline', () => {
  const DEADLINE_MS = 300
  /** Stopping may take this long past the deadline (one check interval is microseconds; the rest is a slow machine). */
  const SLACK_MS = 3000

  const MESSAGE = `execution aborted (timeout = ${DEADLINE_MS / 1000}s)`

  /** Runs an eth_call under the EVM deadline as a call worker does (src/exec/pool/tasks.ts). */
  async function timed(request: CallRequest): Promise<{ result: { timedOut: boolean; error: unknown }; ms: number }> {
    const limits = { gasCap: 1n << 39n, timeoutMs: DEADLINE_MS }
    const t0 = performance.now()
    const run = await withEvmDeadline(DEADLINE_MS, MESSAGE, () => call(ctx.env(), request, limits))
    return { result: { timedOut: run.timedOut, error: run.error }, ms: performance.now() - t0 }
  }

  for (const [what, request] of [
    ['an endless loop', () => ({ to: at.loop })],
    ['an endless loop one call down', () => ({ to: at.callInfo, data: bytes(word(at.loop)) })],
  ] as [string, () => CallRequest][]) {
    it(`stops ${what} with the timeout, on both paths, in bounded time`, async () => {
      const fast = await timed(request())
      // an access list keeps a message off the fast layer: ethereumjs runs it
      const slow = await timed({ ...request(), accessList: [] })
      // the run reports the deadline (the task then answers geth's timeout text, src/exec/pool/tasks.ts)
      expect(fast.result.timedOut).toBe(true)
      expect(slow.result.timedOut).toBe(true)
      expect(fast.ms).toBeLessThan(DEADLINE_MS + SLACK_MS)
      expect(slow.ms).toBeLessThan(DEADLINE_MS + SLACK_MS)
      // the next call is answered normally by the fast path
      const before = fastCallStats.answered
      const d = await differential(ctx.env(), { to: at.callInfo, data: bytes(word(at.balances)) }, 100_000n)
      expect(shown(d.fast)).toEqual(shown(d.slow))
      expect(fastCallStats.answered).toBe(before + 1)
    }, 30_000)
  }
})

describe('value transfers', () => {
  it('funded and unfunded senders, nested CALL and CALLCODE with value within and beyond the balance', async () => {
    const poor = bytes('5e'.repeat(20))
    const fresh = bytes(`${'00'.repeat(18)}beef`)
    const cases: [string, CallRequest, bigint][] = []
    for (const [what, from] of [
      ['funded', ctx.from],
      ['poor', poor],
    ] as [string, Uint8Array][]) {
      cases.push([`${what}: value to an EOA`, { from, to: dev(1), value: 1n }, 21_000n])
      cases.push([`${what}: value to a new account`, { from, to: fresh, value: 1n }, 21_000n])
      cases.push([`${what}: value to a contract`, { from, to: at.balances, value: 10n ** 18n }, 100_000n])
      cases.push([
        `${what}: value to the identity precompile`,
        { from, to: IDENTITY, value: 9n, data: bytes('c0ffee') },
        100_000n,
      ])
      cases.push([`${what}: no value`, { from, to: at.balances }, 100_000n])
    }
    for (const [label, target] of [
      ['CALL', at.funded],
      ['CALLCODE', at.fundedCode],
      ['CALL (no balance)', at.forward],
      ['CALLCODE (no balance)', at.forwardCode],
    ] as [string, Uint8Array][]) {
      for (const [what, to, value] of [
        ['to an EOA', dev(1), 5n],
        ['to a new account', fresh, 5n],
        ['to a contract', at.balances, 5n],
        ['to itself', target, 5n],
        ['to the identity precompile', IDENTITY, 5n],
        ['its whole balance', dev(1), 1000n],
        ['beyond its balance', dev(1), 1001n],
        ['far beyond its balance', at.balances, 1n << 200n],
        ['with top-level value on top', at.balances, 1500n],
      ] as [string, Uint8Array, bigint][]) {
        const data = bytes(word(to) + word(value))
        cases.push([`${label} ${what}`, { to: target, data }, 200_000n])
        cases.push([
          `${label} ${what}, funded sender adds 1000`,
          { from: ctx.from, to: target, data, value: 1000n },
          200_000n,
        ])
        cases.push([
          `${label} ${what}, short of gas for the transfer`,
          { to: target, data },
          21_000n + 16n * 64n + 9_500n,
        ])
      }
    }
    const { bailed } = await compareAll(cases)
    expect(bailed).toEqual([])
  })

  it('a sender that cannot pay the value: the same error both ways', async () => {
    const d = await differential(ctx.env(), { from: bytes('5e'.repeat(20)), to: dev(1), value: 1n }, 21_000n)
    expect(d.fast.thrown).toMatch(/^insufficient funds for gas \* price \+ value/)
    expect(d.fast).toEqual(d.slow)
  })
})
