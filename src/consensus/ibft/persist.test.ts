/**
 * A validator restarted in the middle of a height keeps its word: the votes it sent and the block
 * it prepared survive (persist.ts), so it never votes for a second block in a round and its
 * ROUND_CHANGE still carries its prepared certificate. "Restart" = a new engine over the same store.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { decodeMessage, encodeMessage, type IbftMessage, MessageCode, signPrepare, signPrePrepare } from './messages.js'
import {
  decodeIbftState,
  encodeIbftState,
  FileIbftStateStore,
  IBFT_STATE_FILE,
  MemoryIbftStateStore,
} from './persist.js'
import { FakeBackend, fakeBlock, hex, ManualTimers, makeEngine, SIGNERS, settle, TEST_BASE_MS } from './testing.js'

const [v0, , v2, v3] = SIGNERS as [(typeof SIGNERS)[0], (typeof SIGNERS)[0], (typeof SIGNERS)[0], (typeof SIGNERS)[0]]
const H = 1n
const sent = (b: FakeBackend): IbftMessage[] => b.sent.map(decodeMessage)
const prepares = (b: FakeBackend) => sent(b).filter((m) => m.code === MessageCode.PREPARE)

/** Validator 1 (not the round-0 proposer) over `store`, started at height H. */
function validator1(store: MemoryIbftStateStore) {
  const made = makeEngine(1, new ManualTimers(), new FakeBackend(), store)
  made.engine.start(H)
  return made
}

describe('IBFT state across a restart', () => {
  it('restarted between PREPARE and COMMIT: no PREPARE for an equivocating second block in the same round', async () => {
    const store = new MemoryIbftStateStore()
    const first = validator1(store)
    const a = signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])
    first.engine.receive(encodeMessage(a))
    await settle()
    expect(prepares(first.backend).map((p) => hex((p as { digest: Uint8Array }).digest))).toEqual([hex(a.digest)])
    expect(store.saves).toBeGreaterThan(0) // saved before the PREPARE went out
    first.engine.stop()

    const second = validator1(store) // the restart
    const b = signPrePrepare(v0, H, 0n, fakeBlock(H, 'B'), [])
    second.engine.receive(encodeMessage(b))
    await settle()
    expect(prepares(second.backend)).toEqual([])
    expect(second.engine.state).toBe('new-round')

    // the block it did vote for may still be prepared again (a resent PREPREPARE of A)
    second.engine.receive(encodeMessage(a))
    await settle()
    expect(prepares(second.backend).map((p) => hex((p as { digest: Uint8Array }).digest))).toEqual([hex(a.digest)])
  })

  it('restarted after preparing: its ROUND_CHANGE still carries the prepared certificate and block', async () => {
    const store = new MemoryIbftStateStore()
    const first = validator1(store)
    const a = signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])
    first.engine.receive(encodeMessage(a))
    await settle()
    first.engine.receive(encodeMessage(signPrepare(v2, H, 0n, a.digest)))
    first.engine.receive(encodeMessage(signPrepare(v3, H, 0n, a.digest)))
    expect(first.engine.state).toBe('commit')
    first.engine.stop()

    const second = validator1(store)
    second.timers.advance(TEST_BASE_MS * 2) // round 0 times out
    const [rc] = sent(second.backend).filter((m) => m.code === MessageCode.ROUND_CHANGE)
    expect(rc?.round).toBe(1n)
    expect(rc?.code === MessageCode.ROUND_CHANGE && hex(rc.preparedDigest as Uint8Array)).toBe(hex(a.digest))
    expect(rc?.code === MessageCode.ROUND_CHANGE && rc.certificate?.prepares.length).toBe(3)
    expect(rc?.code === MessageCode.ROUND_CHANGE && rc.proposal !== undefined).toBe(true)
  })

  it('restarted in round 2: resumes at round 2 and asks for it, instead of starting over at round 0', () => {
    const store = new MemoryIbftStateStore()
    const first = validator1(store)
    first.timers.advance(TEST_BASE_MS * 100) // rounds 0 and 1 time out (doubling timeouts)
    const reached = first.engine.round
    expect(reached).toBeGreaterThanOrEqual(2n)
    first.engine.stop()

    const second = validator1(store)
    expect(second.engine.round).toBe(reached)
    const rcs = sent(second.backend).filter((m) => m.code === MessageCode.ROUND_CHANGE)
    expect(rcs.map((m) => m.round)).toEqual([reached])
  })

  it('a record of another height is ignored', async () => {
    const store = new MemoryIbftStateStore()
    store.save({ height: H + 5n, round: 3n, votes: [{ round: 0n, code: MessageCode.PREPARE, digest: new Uint8Array(32) }], prepared: undefined })
    const { engine, backend } = validator1(store)
    expect(engine.round).toBe(0n)
    engine.receive(encodeMessage(signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])))
    await settle()
    expect(prepares(backend)).toHaveLength(1)
  })
})

describe('FileIbftStateStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-ibft-state-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('round-trips a record, replacing the file atomically (no temp file left)', () => {
    const store = new FileIbftStateStore(join(dir, IBFT_STATE_FILE))
    expect(store.load()).toBeUndefined()
    const state = {
      height: 7n,
      round: 2n,
      votes: [
        { round: 0n, code: MessageCode.PREPARE, digest: Uint8Array.from({ length: 32 }, (_, i) => i) },
        { round: 0n, code: MessageCode.COMMIT, digest: Uint8Array.from({ length: 32 }, (_, i) => i) },
      ],
      prepared: Uint8Array.of(1, 2, 3),
    }
    store.save(state)
    store.save({ ...state, round: 3n })
    const loaded = store.load()
    expect(loaded?.round).toBe(3n)
    expect(hex(encodeIbftState(loaded as typeof state))).toBe(hex(encodeIbftState({ ...state, round: 3n })))
    expect(readdirSync(dir)).toEqual([IBFT_STATE_FILE])
  })

  it('a damaged record is reported and ignored, never fatal', () => {
    const path = join(dir, 'damaged.rlp')
    writeFileSync(path, Uint8Array.of(0xf9, 0xff))
    const reasons: string[] = []
    const store = new FileIbftStateStore(path, (r) => reasons.push(r))
    expect(store.load()).toBeUndefined()
    expect(reasons[0]).toContain(path)
    expect(existsSync(path)).toBe(true)
  })

  it('refuses records of another version', () => {
    const bytes = encodeIbftState({ height: 1n, round: 0n, votes: [], prepared: undefined })
    const other = Uint8Array.from(bytes)
    other[1] = 0x02 // version 1 → 2
    expect(() => decodeIbftState(other)).toThrow(/version/)
  })
})
