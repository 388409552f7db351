/**
 * Test doubles for the IBFT engine: fixed validator keys, stand-in blocks (a header whose
 * extraData is IBFT, so proposalDigest works), a manual clock, and a recording backend.
 * Used by engine.test.ts and network.test.ts; no production code imports it.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToHex } from '@ethereumjs/util'
import { keccak256 } from 'ethereum-cryptography/keccak.js'

import type { EngineTimers, Finalized, IbftBackend } from './backend.js'
import { HeightContext } from './certificates.js'
import { IbftEngine } from './engine.js'
import { encodeExtra } from '../../chain/ibft/extra.js'
import type { Signer } from './messages.js'
import type { IbftStateStore } from './persist.js'
import { privateKeyToAddress } from './seal.js'

/** Round-timeout base of the test engines, ms. */
export const TEST_BASE_MS = 1000
/** Block time of the test engines, ms. */
export const TEST_BLOCK_MS = 100

/** Four validators with keys derived from a fixed seed (index order = rotation order). */
export const SIGNERS: Signer[] = [1, 2, 3, 4].map((i) => {
  const key = keccak256(Uint8Array.of(0x1b, i))
  return { key, address: privateKeyToAddress(key) }
})
export const VALIDATORS = SIGNERS.map((s) => s.address)

/** A stand-in block at `height`: a 15-field header whose extraData names the validators; `tag` makes blocks differ. */
export function fakeBlock(height: bigint, tag: string): Uint8Array {
  const vanity = new Uint8Array(32)
  vanity.set(new TextEncoder().encode(tag).subarray(0, 32))
  const extra = encodeExtra({
    vanity,
    validators: VALIDATORS,
    proposerSeal: new Uint8Array(0),
    committedSeals: [],
    parentCommittedSeals: [],
    round: 0n,
  })
  const header: Uint8Array[] = Array.from({ length: 15 }, () => new Uint8Array(0))
  header[8] = bigIntToUnpaddedBytes(height)
  header[12] = extra
  return RLP.encode([header, [], []])
}

/** A clock that only moves when told. */
export class ManualTimers implements EngineTimers {
  #now = 1_000_000
  #seq = 0
  readonly #due = new Map<number, { at: number; fn: () => void }>()

  now(): number {
    return this.#now
  }
  set(fn: () => void, ms: number): unknown {
    const id = ++this.#seq
    this.#due.set(id, { at: this.#now + ms, fn })
    return id
  }
  clear(handle: unknown): void {
    this.#due.delete(handle as number)
  }
  /** Moves the clock by `ms`, running every timer that falls due, in time order. */
  advance(ms: number): void {
    const end = this.#now + ms
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined
      for (const entry of this.#due)
        if (entry[1].at <= end && (next === undefined || entry[1].at < next[1].at)) next = entry
      if (next === undefined) break
      this.#due.delete(next[0])
      this.#now = next[1].at
      next[1].fn()
    }
    this.#now = end
  }
}

/** A backend that records what the engine does; blocks are built from `tag`, verification is `accept`. */
export class FakeBackend implements IbftBackend {
  readonly sent: Uint8Array[] = []
  readonly finalized: Finalized[] = []
  readonly verified: string[] = []
  tag = 'block'
  accept: (proposal: Uint8Array) => boolean = () => true

  context(height: bigint): HeightContext {
    return new HeightContext(height, VALIDATORS, null)
  }
  proposeAtMs(): number {
    return 0
  }
  async buildProposal(height: bigint): Promise<Uint8Array> {
    return fakeBlock(height, this.tag)
  }
  async verifyProposal(_h: bigint, _r: bigint, proposal: Uint8Array, proposer: string | undefined): Promise<boolean> {
    this.verified.push(proposer ?? 'reproposal')
    return this.accept(proposal)
  }
  async finalize(block: Finalized): Promise<void> {
    this.finalized.push(block)
  }
  broadcast(wire: Uint8Array): void {
    this.sent.push(wire)
  }
}

/** An engine for validator `index` over a FakeBackend and a ManualTimers clock. */
export function makeEngine(
  index: number,
  timers = new ManualTimers(),
  backend = new FakeBackend(),
  stateStore?: IbftStateStore,
) {
  const engine = new IbftEngine({
    signer: SIGNERS[index] as Signer,
    backend,
    roundTimeoutBaseMs: TEST_BASE_MS,
    blockTimeMs: TEST_BLOCK_MS,
    timers,
    stateStore,
  })
  return { engine, backend, timers }
}

/** Lets pending promise continuations (verification, building, finalization) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
}

export const hex = bytesToHex
