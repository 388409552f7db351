/**
 * Differential test of the message runner's layers (runMessage.ts): the same messages run through
 * the fast layer and through the ethereumjs layer (runTx) must give the same return data, error
 * and revert flag. The probe contract
 * writes into its answer what a call can observe of its setup: gas left at entry (intrinsic gas),
 * the gas of touching the coinbase, the sender, a precompile and a cold address (the EIP-2929 warm
 * set), ORIGIN, CALLER, GASPRICE, BASEFEE, balances, CALLVALUE, and a transient and a storage
 * slot it then writes (nothing may survive into the next call).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { Address, bytesToHex, createContractAddress, hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { devAccounts } from '../config/accounts.js'
import { callStateFor } from './callState.js'
import { call, estimateGas } from './call.js'
import {
  ExecutionError,
  ExecutionRevertedError,
  FeeStylesConflictError,
  GasAllowanceExceededError,
  InsufficientFundsForTransferError,
  IntrinsicGasError,
  senderText,
  TipAboveFeeCapError,
} from './errors.js'
import type { MessageOverrides } from './overrides.js'
import { keepFullFrameResults } from './patches.js'
import { type CallRequest, type Env, type MessageOptions, runMessage } from './runMessage.js'
import { openTestChain, validateTransaction } from '../../test/helpers/chain.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const [alice, , validator] = devAccounts(3) as { address: string; privateKey: string }[]

const PROBE = [
  '5a5f52', // GAS → [0x00]
  '32602052', // ORIGIN → [0x20]
  '33604052', // CALLER → [0x40]
  '3a606052', // GASPRICE → [0x60]
  '4131608052', // BALANCE(COINBASE) → [0x80]
  '5a60a052', // GAS → [0xa0]
  '333160c052', // BALANCE(CALLER) → [0xc0]
  '5a60e052', // GAS → [0xe0]
  '600131505a61010052', // BALANCE(0x01) POP, GAS → [0x100]
  '3461012052', // CALLVALUE → [0x120]
  '4761014052', // SELFBALANCE → [0x140]
  '609931505a61016052', // BALANCE(0x99) POP (cold), GAS → [0x160]
  '4861018052', // BASEFEE → [0x180]
  '5f5c6101a052', // TLOAD(0) → [0x1a0]
  '60015f5d', // TSTORE(0, 1)
  '5f546101c052', // SLOAD(0) → [0x1c0]
  '60015f55', // SSTORE(0, 1)
  '6101e05ff3', // RETURN(0, 0x1e0)
].join('')
const REVERTER = '63deadbeef5f526004601cfd'
const INVALID = 'fe'
const LOOP = '5b5f56'
/** SSTORE(0, 1) then SSTORE(0, 0): a refund for the slot restored. */
const REFUNDER = '60015f555f5f5500'
/** CREATE(0, 0, 0), returns the new address: shows the nonce the contract has during the call. */
const CREATOR = '5f5f5ff05f5260205ff3'

/** Init code returning `runtime`: CODECOPY(0, 12, len) RETURN(0, len). */
function deployCode(runtime: string): string {
  const len = (runtime.length / 2).toString(16).padStart(4, '0')
  return `0x61${len}600c5f3961${len}5ff3${runtime}`
}

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-call-'))
  dirs.push(dir)
  const chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
  const from = new Address(hexToBytes(alice?.address as `0x${string}`))
  const runtimes = [PROBE, REVERTER, INVALID, LOOP, CREATOR, REFUNDER]
  const txs = await Promise.all(
    runtimes.map((r, i) =>
      validateTransaction(
        createTx(
          {
            type: 2,
            nonce: BigInt(i),
            data: hexToBytes(deployCode(r) as `0x${string}`),
            gasLimit: 500_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          },
          { common: chain.common },
        )
          .sign(hexToBytes(alice?.privateKey as `0x${string}`))
          .serialize(),
        chain.admission(),
      ),
    ),
  )
  const { included } = await chain.builder.build(txs, chain.store.head.header.timestamp + 1n)
  expect(included.length).toBe(runtimes.length)
  const [probe, reverter, invalid, loop, creator, refunder] = runtimes.map(
    (_, i) => createContractAddress(from, BigInt(i)).bytes,
  )
  const env = { db: chain.db, store: chain.store, common: chain.common, block: chain.store.head }
  return { chain, env, from: from.bytes, probe, reverter, invalid, loop, creator, refunder } as const
}

/** One message through the runner: by default, the ethereumjs layer with runTx's gas figure. */
function attempt(env: Env, req: CallRequest, gas: bigint, opts: MessageOptions = { want: 'gas' }) {
  return runMessage(env, req, gas, opts)
}

/** The fast layer first (what eth_call runs). */
const OUTPUT: MessageOptions = { want: 'output' }

describe('eth_call: the fast layer against the ethereumjs layer', () => {
  it('gives the same return data, error and revert flag for every kind of message', async () => {
    const s = await setup()
    const stranger = new Uint8Array(20).fill(0x42)
    const cases: [string, CallRequest, bigint][] = [
      ['probe from alice', { from: s.from, to: s.probe }, 50_000_000n],
      ['probe, no from', { to: s.probe }, 50_000_000n],
      [
        'probe with calldata (zero and non-zero bytes)',
        { from: stranger, to: s.probe, data: hexToBytes('0x0000ff00aa00000001') },
        1_000_000n,
      ],
      ['probe with value', { from: s.from, to: s.probe, value: 12345n }, 300_000n],
      ['probe at a tight gas', { from: s.from, to: s.probe }, 30_000n],
      ['revert with data', { from: s.from, to: s.reverter }, 100_000n],
      ['invalid opcode', { from: s.from, to: s.invalid }, 100_000n],
      ['out of gas', { from: s.from, to: s.loop }, 100_000n],
      ['CREATE from a contract', { from: s.from, to: s.creator }, 200_000n],
      ['storage refund', { from: s.from, to: s.refunder }, 100_000n],
      ['account without code', { from: s.from, to: stranger, data: hexToBytes('0x1234') }, 100_000n],
      [
        'identity precompile',
        { from: s.from, to: hexToBytes(`0x${'00'.repeat(19)}04`), data: hexToBytes('0xc0ffee') },
        100_000n,
      ],
    ]
    for (const [what, req, gas] of cases) {
      const viaRunTx = await attempt(s.env, req, gas)
      const fast = await attempt(s.env, req, gas, OUTPUT)
      expect({ what, ...pick(fast) }).toEqual({ what, ...pick(viaRunTx) })
      // the lean frame result (evmPatches.ts) changes no gas, refund, return data or error
      const { vm } = await callStateFor(s.env.store, s.env.db, s.env.block)
      keepFullFrameResults(vm.evm)
      try {
        const full = await attempt(s.env, req, gas)
        expect({ what, ...full }).toEqual({ what, ...viaRunTx })
      } finally {
        keepFullFrameResults(vm.evm, false)
      }
    }
    // the refund case does refund: less gas than its two SSTOREs cost
    const refunded = await attempt(s.env, { from: s.from, to: s.refunder }, 100_000n)
    expect(refunded.gasUsed).toBeLessThan(21_000n + 20_000n)
    // the probe saw what a call must see: warm coinbase, sender and precompile; a cold stranger
    const words = wordsOf((await attempt(s.env, { from: s.from, to: s.probe }, 50_000_000n, OUTPUT)).returnValue)
    expect(words[0]).toBe(50_000_000n - 21_000n - 2n) // the GAS opcode costs 2
    expect(words[5] - words[7]).toBeLessThan(200n) // BALANCE(CALLER) warm: 100 + the MSTOREs
    expect(words[7] - words[8]).toBeLessThan(200n) // a precompile: warm
    expect(words[8] - words[11]).toBeGreaterThan(2_500n) // 0x99: cold (2,600)
    expect(words[13]).toBe(0n) // transient slot: clean
    expect(words[14]).toBe(0n) // storage: the last call's write reverted
    await s.chain.db.close()
  })

  it('keeps frame results lean: no copy of the run state or environment (evmPatches.ts)', async () => {
    const s = await setup()
    const state = await callStateFor(s.env.store, s.env.db, s.env.block)
    const run = async () => {
      const evm = state.vm.evm
      await evm.journal.checkpoint()
      try {
        const r = await evm.runCall({
          block: state.envBlock(s.env.block, true),
          to: new Address(s.probe),
          caller: new Address(s.from),
          gasLimit: 1_000_000n,
        })
        return {
          keys: Object.keys(r.execResult.runState ?? {}),
          out: r.execResult.returnValue,
          gas: r.execResult.executionGasUsed,
        }
      } finally {
        await evm.journal.revert()
      }
    }
    const lean = await run()
    keepFullFrameResults(state.vm.evm)
    const full = await run().finally(() => keepFullFrameResults(state.vm.evm, false))
    // the installed wrapper is in effect (an ethereumjs upgrade that renames Interpreter.run shows here)
    expect(full.keys).toEqual(expect.arrayContaining(['memory', 'stack', 'address', 'gasLeft']))
    expect(lean.keys).not.toContain('memory')
    expect(lean.keys).not.toContain('address')
    expect(lean.keys).toContain('gasLeft')
    expect(lean.gas).toBe(full.gas)
    expect(lean.out.length).toBe(full.out.length)
    await s.chain.db.close()
  })

  it('answers eth_call like geth where runTx departs from it, and words errors as geth', async () => {
    const s = await setup()
    const limits = { gasCap: 50_000_000n, timeoutMs: 5_000 }
    // geth calls from a contract account (no EIP-3607 check) and bumps its nonce first
    const created = await call(s.env, { from: s.creator, to: s.creator }, limits)
    expect(bytesToHex(created.slice(12))).toBe(createContractAddress(new Address(s.creator), 2n).toString())
    await expect(call(s.env, { from: s.from, to: s.reverter }, limits)).rejects.toEqual(
      new ExecutionRevertedError(hexToBytes('0xdeadbeef')),
    )
    await expect(call(s.env, { from: s.from, to: s.loop, gas: 50_000n }, limits)).rejects.toEqual(
      new ExecutionError('out of gas'),
    )
    await expect(
      call(s.env, { from: s.from, to: s.probe, gas: 21_000n, data: hexToBytes('0x01') }, limits),
    ).rejects.toThrow(`err: ${new IntrinsicGasError(21_000n, 21_016n).shortMessage} (supplied gas 21000)`)
    await s.chain.db.close()
  })
})

function pick(o: { returnValue: Uint8Array; error: string | undefined; reverted: boolean }) {
  return { returnValue: bytesToHex(o.returnValue), error: o.error, reverted: o.reverted }
}

describe("eth_call and eth_estimateGas: geth's call defaults (found by test/callFuzz.test.ts)", () => {
  it('refuse both fee styles, read a lone tip against a fee cap of 0, ignore the nonce, word a 256-bit overflow', async () => {
    const s = await setup()
    const limits = { gasCap: 50_000_000n, timeoutMs: 5_000 }
    const to = s.probe
    const both = { from: s.from, to, gasPrice: 0n, maxFeePerGas: 0n }
    await expect(call(s.env, both, limits)).rejects.toEqual(new FeeStylesConflictError())
    await expect(estimateGas(s.env, both, limits)).rejects.toThrow(
      'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    )
    // a huge lone tip used to reach the transaction builder and take the worker down
    const tip = 1n << 255n
    await expect(call(s.env, { from: s.from, to, maxPriorityFeePerGas: tip }, limits)).rejects.toEqual(
      new ExecutionError(
        `err: ${new TipAboveFeeCapError(senderText(s.from), tip, 0n).shortMessage} (supplied gas 50000000)`,
      ),
    )
    // geth skips nonce checks for calls: a nonce no transaction can carry changes nothing
    const maxNonce = (1n << 64n) - 1n
    const plain = await call(s.env, { from: s.from, to }, limits)
    const fees = { maxFeePerGas: 10n ** 10n }
    expect(await call(s.env, { from: s.from, to, nonce: maxNonce }, limits)).toEqual(plain)
    expect((await call(s.env, { from: s.from, to, nonce: maxNonce, ...fees }, limits)).length).toBe(plain.length)
    await expect(call(s.env, { from: s.from, to, maxFeePerGas: 1n << 255n }, limits)).rejects.toThrow(
      `insufficient funds for gas * price + value: address ${senderText(s.from)} required balance exceeds 256 bits`,
    )
    await s.chain.db.close()
  })

  it("follows geth's estimator on funds and allowance", async () => {
    const s = await setup()
    const limits = { gasCap: 50_000_000n, timeoutMs: 5_000 }
    const empty = new Uint8Array(20).fill(0x77)
    const price = { maxFeePerGas: 10n ** 10n }
    // with a fee, an empty sender cannot move even a value of 0
    await expect(estimateGas(s.env, { from: empty, to: s.probe, ...price }, limits)).rejects.toEqual(
      new InsufficientFundsForTransferError(),
    )
    // a fee so high that no gas is affordable: the attempt at 0 gas fails, as in geth's estimator
    await expect(estimateGas(s.env, { from: s.from, to: s.probe, maxFeePerGas: 1n << 255n }, limits)).rejects.toEqual(
      new GasAllowanceExceededError(0n),
    )
    // a gas below the intrinsic cost is raised, not answered
    expect(await estimateGas(s.env, { from: s.from, to: s.probe, gas: 1n }, limits)).toBeGreaterThan(21_000n)
    await s.chain.db.close()
  })
})

describe('overrides (overrides.ts): they last one message', () => {
  it('a state edit, a precompile move and a block override apply to the call, and the next one sees none', async () => {
    const s = await setup()
    const limits = { gasCap: 50_000_000n, timeoutMs: 5_000 }
    const at = new Uint8Array(20).fill(0xc0)
    const home = new Uint8Array(20).fill(0xc1)
    const identity = '0000000000000000000000000000000000000004'
    // NUMBER, TIMESTAMP as two words
    const numberTime = hexToBytes('0x436000524260205260406000f3')
    const overrides: MessageOverrides = {
      state: async (sm, table) => {
        await sm.putCode(new Address(at), numberTime)
        const precompile = table.get(identity)
        if (precompile !== undefined) table.set(bytesToHex(home).slice(2), precompile)
        table.delete(identity)
      },
      block: { number: 0x1234n, time: 0x5678n },
    }
    const input = hexToBytes('0xc0ffee')
    expect(wordsOf(await call(s.env, { to: at }, limits, overrides))).toEqual([0x1234n, 0x5678n])
    expect(bytesToHex(await call(s.env, { to: home, data: input }, limits, overrides))).toBe('0xc0ffee')
    expect(bytesToHex(await call(s.env, { to: hexToBytes(`0x${identity}`), data: input }, limits, overrides))).toBe(
      '0x',
    )
    // the same CallState, on the ethereumjs layer: the code, the move and the header are gone
    for (const to of [at, home]) expect((await attempt(s.env, { to }, 100_000n)).returnValue.length).toBe(0)
    const back = await attempt(s.env, { to: hexToBytes(`0x${identity}`), data: input }, 100_000n)
    expect(bytesToHex(back.returnValue)).toBe('0xc0ffee')
    // a refusal of the edit itself leaves nothing behind either
    const failing: MessageOverrides = {
      state: async (sm) => {
        await sm.putCode(new Address(at), numberTime)
        throw new ExecutionError('account refused')
      },
    }
    await expect(call(s.env, { to: at }, limits, failing)).rejects.toThrow('account refused')
    expect((await attempt(s.env, { to: at }, 100_000n)).returnValue.length).toBe(0)
    await s.chain.db.close()
  })
})

function wordsOf(b: Uint8Array): bigint[] {
  const out: bigint[] = []
  for (let i = 0; i + 32 <= b.length; i += 32) out.push(BigInt(bytesToHex(b.slice(i, i + 32))))
  return out
}
