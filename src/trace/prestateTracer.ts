/**
 * geth's native prestateTracer (eth/tracers/native/prestate.go): the accounts a transaction
 * touched, as they were before it ran — or with `diffMode`, `{"post": …, "pre": …}` holding only
 * what changed.
 *
 *   accounts looked up: sender, recipient (or the created address), coinbase at the start; then
 *   BALANCE / EXTCODE* / SELFDESTRUCT targets, CALL-family callees, CREATE / CREATE2 addresses;
 *   storage slots at SLOAD / SSTORE of the executing contract.
 *
 * An account is `{"balance","code","nonce","storage"}` (geth's order), read when first looked up:
 * `balance` always, `code` when not empty, `nonce` when not zero (a JSON number), `storage` when
 * any slot was read. Accounts created by the transaction that did not exist before are left out.
 * In diff mode an account stays only if it changed; `post` has the changed members, storage
 * slots that changed to non-zero values, and `pre` keeps only the slots that changed and were
 * not zero.
 *
 * A step that fails before it runs records nothing: geth's OnOpcode returns on a step carrying an
 * error, and geth's interpreter hands it one exactly when the opcode failed its checks (stack,
 * gas, a static context's write protection). ethereumjs shows us the step before those checks,
 * so what a step adds is journaled and kept once the EVM moves on — the next step, a frame
 * entered — or undone when the frame ends in an error right after it (only a step that failed
 * can be a frame's last one and not halt it).
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, bigIntToBytes, createContractAddress, createContractAddress2, setLengthLeft } from '@ethereumjs/util'
import { toData, toQuantity } from '../util/hex.js'
import { goJson, isCallOp, OP_CREATE, OP_CREATE2, OP_SLOAD, OP_SSTORE } from './opcodes.js'
import type { PrestateTracerConfig } from './options.js'
import type { JsonSink } from './sink.js'
import type { Tracer, TxEndContext, TxStartContext } from './types.js'

const OP_BALANCE = 0x31
const OP_EXTCODESIZE = 0x3b
const OP_EXTCODECOPY = 0x3c
const OP_EXTCODEHASH = 0x3f
const OP_SELFDESTRUCT = 0xff
const ADDRESS_MASK = (1n << 160n) - 1n
const ZERO_WORD = `0x${'0'.repeat(64)}`

interface Account {
  balance: bigint
  nonce: bigint
  code: Uint8Array | undefined
  storage: Map<string, string> | undefined
  /** Did not exist when first looked up (geth's `empty`). */
  empty: boolean
}

/** What one step added, undone if that step turns out to have failed. */
type StepEntry =
  | { kind: 'account'; key: string }
  | { kind: 'slot'; key: string; slot: string }
  | { kind: 'created'; key: string }
  | { kind: 'deleted'; key: string }

interface PostAccount {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  storage: Map<string, string>
}

function stackAddress(v: bigint): Address {
  return new Address(setLengthLeft(bigIntToBytes(v & ADDRESS_MASK), 20))
}

function wordBytes(v: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(v), 32)
}

function wordHex(bytes: Uint8Array): string {
  return toData(setLengthLeft(bytes, 32))
}

function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  const n = Number(size)
  const out = new Uint8Array(n)
  const start = Number(offset)
  if (start < memory.length) out.set(memory.subarray(start, Math.min(memory.length, start + n)))
  return out
}

export class PrestateTracer implements Tracer {
  readonly asyncSteps = true
  readonly #cfg: PrestateTracerConfig
  readonly #sink: JsonSink
  readonly #pre = new Map<string, Account>()
  readonly #post = new Map<string, PostAccount>()
  readonly #created = new Set<string>()
  readonly #deleted = new Set<string>()
  /** What the latest step added; empty once the EVM went on past it. */
  #stepJournal: StepEntry[] = []
  /** True while a step runs its lookups (they are journaled then, not during txStart). */
  #inStep = false
  #state: MerkleStateManager | undefined

  constructor(cfg: PrestateTracerConfig, sink: JsonSink) {
    this.#cfg = cfg
    this.#sink = sink
  }

  async txStart(ctx: TxStartContext): Promise<void> {
    this.#state = ctx.state
    if (ctx.isCreate) this.#created.add(ctx.to.toString())
    await this.#lookupAccount(ctx.from)
    await this.#lookupAccount(ctx.to)
    await this.#lookupAccount(ctx.coinbase)
  }

  enter(_message: Message): void {
    // the step that made this frame (CALL-family, CREATE*) passed its checks
    this.#stepJournal = []
  }

  exit(result: EVMResult): void {
    // a frame ending in an error just after a step that cannot halt it: that step failed
    if (result.execResult.exceptionError !== undefined) this.#undoStep()
    this.#stepJournal = []
  }

  async step(step: InterpreterStep): Promise<void> {
    // the EVM went on: the previous step did not fail
    this.#stepJournal = []
    this.#inStep = true
    try {
      await this.#recordStep(step)
    } finally {
      this.#inStep = false
    }
  }

  /** geth's prestateTracer.OnOpcode, for a step that may still fail. */
  async #recordStep(step: InterpreterStep): Promise<void> {
    const code = step.opcode.code
    const stack = step.stack
    const n = stack.length
    if (n >= 1 && (code === OP_SLOAD || code === OP_SSTORE)) {
      await this.#lookupStorage(step.address, stack[n - 1])
    } else if (
      n >= 1 &&
      (code === OP_EXTCODECOPY ||
        code === OP_EXTCODEHASH ||
        code === OP_EXTCODESIZE ||
        code === OP_BALANCE ||
        code === OP_SELFDESTRUCT)
    ) {
      await this.#lookupAccount(stackAddress(stack[n - 1]))
      if (code === OP_SELFDESTRUCT) this.#addTo(this.#deleted, 'deleted', step.address.toString())
    } else if (n >= 5 && isCallOp(code)) {
      await this.#lookupAccount(stackAddress(stack[n - 2]))
    } else if (code === OP_CREATE) {
      const nonce = (await this.#sm().getAccount(step.address))?.nonce ?? 0n
      const addr = createContractAddress(step.address, nonce)
      await this.#lookupAccount(addr)
      this.#addTo(this.#created, 'created', addr.toString())
    } else if (n >= 4 && code === OP_CREATE2) {
      const init = memorySlice(step.memory, stack[n - 2], stack[n - 3])
      const addr = createContractAddress2(step.address, wordBytes(stack[n - 4]), init)
      await this.#lookupAccount(addr)
      this.#addTo(this.#created, 'created', addr.toString())
    }
  }

  /** Adds `key` to `set`, journaled when a step adds it. */
  #addTo(set: Set<string>, kind: 'created' | 'deleted', key: string): void {
    if (set.has(key)) return
    set.add(key)
    if (this.#inStep) this.#stepJournal.push({ kind, key })
  }

  /** Takes back what the latest step added. */
  #undoStep(): void {
    for (const e of this.#stepJournal) {
      if (e.kind === 'account') this.#pre.delete(e.key)
      else if (e.kind === 'slot') this.#pre.get(e.key)?.storage?.delete(e.slot)
      else if (e.kind === 'created') this.#created.delete(e.key)
      else this.#deleted.delete(e.key)
    }
  }

  async txEnd(_ctx: TxEndContext): Promise<void> {
    if (this.#cfg.diffMode) await this.#processDiffState()
    for (const a of this.#created) {
      if (this.#pre.get(a)?.empty === true) this.#pre.delete(a)
    }
  }

  finish(): void {
    const pre = stateJson(this.#pre)
    this.#sink.write(goJson(this.#cfg.diffMode ? { post: postJson(this.#post), pre } : pre))
  }

  #sm(): MerkleStateManager {
    if (this.#state === undefined) throw new Error('prestateTracer: step before txStart')
    return this.#state
  }

  async #lookupAccount(address: Address): Promise<void> {
    const key = address.toString()
    if (this.#pre.has(key)) return
    const sm = this.#sm()
    const account = await sm.getAccount(address)
    const balance = account?.balance ?? 0n
    const nonce = account?.nonce ?? 0n
    const code = await sm.getCode(address)
    this.#pre.set(key, {
      balance,
      nonce,
      code: this.#cfg.disableCode ? undefined : code,
      storage: this.#cfg.disableStorage ? undefined : new Map(),
      empty: !(nonce > 0n || code.length > 0 || balance !== 0n),
    })
    if (this.#inStep) this.#stepJournal.push({ kind: 'account', key })
  }

  async #lookupStorage(address: Address, slot: bigint): Promise<void> {
    if (this.#cfg.disableStorage) return
    await this.#lookupAccount(address)
    const storage = this.#pre.get(address.toString())?.storage
    const key = toData(wordBytes(slot))
    if (storage === undefined || storage.has(key)) return
    storage.set(key, wordHex(await this.#sm().getStorage(address, wordBytes(slot))))
    if (this.#inStep) this.#stepJournal.push({ kind: 'slot', key: address.toString(), slot: key })
  }

  async #processDiffState(): Promise<void> {
    const sm = this.#sm()
    for (const [key, pre] of this.#pre) {
      const address = new Address(Buffer.from(key.slice(2), 'hex'))
      const account = await sm.getAccount(address)
      // destroyed accounts stay in `pre` only; since EIP-6780 SELFDESTRUCT destroys only a
      // contract created in the same transaction, otherwise it just moves the balance
      if (this.#deleted.has(key) && account === undefined) continue
      const post: PostAccount = { storage: new Map() }
      let modified = false
      const balance = account?.balance ?? 0n
      const nonce = account?.nonce ?? 0n
      if (balance !== pre.balance) {
        modified = true
        post.balance = balance
      }
      if (nonce !== pre.nonce) {
        modified = true
        post.nonce = nonce
      }
      if (!this.#cfg.disableCode) {
        const code = await sm.getCode(address)
        if (Buffer.compare(code, pre.code ?? new Uint8Array(0)) !== 0) {
          modified = true
          post.code = code
        }
      }
      if (pre.storage !== undefined) {
        for (const [slot, value] of [...pre.storage]) {
          if (value === ZERO_WORD) pre.storage.delete(slot)
          const now = wordHex(await sm.getStorage(address, Buffer.from(slot.slice(2), 'hex')))
          if (now === value) {
            pre.storage.delete(slot)
          } else {
            modified = true
            if (now !== ZERO_WORD) post.storage.set(slot, now)
          }
        }
      }
      if (modified) this.#post.set(key, post)
      else this.#pre.delete(key)
    }
  }
}

function sorted<V>(m: Map<string, V>): [string, V][] {
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

function storageJson(storage: Map<string, string> | undefined): Record<string, string> | undefined {
  if (storage === undefined || storage.size === 0) return undefined
  return Object.fromEntries(sorted(storage))
}

function stateJson(state: Map<string, Account>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [address, a] of sorted(state)) {
    out[address] = {
      balance: toQuantity(a.balance),
      code: a.code !== undefined && a.code.length > 0 ? toData(a.code) : undefined,
      nonce: a.nonce > 0n ? Number(a.nonce) : undefined,
      storage: storageJson(a.storage),
    }
  }
  return out
}

function postJson(state: Map<string, PostAccount>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [address, a] of sorted(state)) {
    out[address] = {
      balance: a.balance === undefined ? undefined : toQuantity(a.balance),
      code: a.code !== undefined && a.code.length > 0 ? toData(a.code) : undefined,
      nonce: a.nonce !== undefined && a.nonce > 0n ? Number(a.nonce) : undefined,
      storage: storageJson(a.storage),
    }
  }
  return out
}
