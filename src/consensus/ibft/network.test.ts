/**
 * Four IBFT engines wired to each other in memory (messages delivered in send order), sharing a
 * manual clock: liveness with a crashed proposer, and safety with a proposer that equivocates.
 */
import { describe, expect, it } from 'vitest'

import type { Finalized } from './backend.js'
import { decodeMessage, encodeMessage, MessageCode, signCommit, signPrepare, signPrePrepare } from './messages.js'
import { signCommittedSeal, verifyCommittedSeals } from './seal.js'
import {
  FakeBackend,
  fakeBlock,
  hex,
  ManualTimers,
  makeEngine,
  SIGNERS,
  settle,
  TEST_BASE_MS,
  TEST_BLOCK_MS,
  VALIDATORS,
} from './testing.js'

type Node = ReturnType<typeof makeEngine>

/** Engines for the validators in `live`; whatever one broadcasts reaches the others (and `tap`). */
function network(live: number[], tap?: (from: number, wire: Uint8Array) => void) {
  const timers = new ManualTimers()
  const nodes = new Map<number, Node>()
  const queue: { from: number; wire: Uint8Array }[] = []
  for (const i of live) {
    const backend = new FakeBackend()
    backend.tag = `by-${i}`
    backend.broadcast = (wire) => queue.push({ from: i, wire })
    nodes.set(i, makeEngine(i, timers, backend))
  }
  const pump = async () => {
    for (let guard = 0; guard < 10_000; guard++) {
      await settle()
      const next = queue.shift()
      if (next === undefined) return
      tap?.(next.from, next.wire)
      for (const [i, n] of nodes) if (i !== next.from) n.engine.receive(next.wire)
    }
    throw new Error('message storm')
  }
  const deliver = async (to: number[], wire: Uint8Array) => {
    for (const i of to) nodes.get(i)?.engine.receive(wire)
    await pump()
  }
  return { timers, nodes, pump, deliver }
}

function decided(nodes: Map<number, Node>): Finalized[] {
  return [...nodes.values()].flatMap((n) => n.backend.finalized)
}

describe('IBFT engines in a simulated network', () => {
  it('all four agree on one block with ≥ q seals', async () => {
    const net = network([0, 1, 2, 3])
    for (const n of net.nodes.values()) n.engine.start(1n)
    net.timers.advance(0)
    await net.pump()
    const all = decided(net.nodes)
    expect(all).toHaveLength(4)
    expect(new Set(all.map((f) => hex(f.digest))).size).toBe(1)
    for (const f of all)
      expect(() => verifyCommittedSeals(f.digest, f.round, f.committedSeals, VALIDATORS)).not.toThrow()
  })

  it('the round-0 proposer is down: the others change round and decide in round 1', async () => {
    const net = network([1, 2, 3])
    for (const n of net.nodes.values()) n.engine.start(1n)
    net.timers.advance(0)
    await net.pump()
    expect(decided(net.nodes)).toEqual([])
    net.timers.advance(TEST_BASE_MS + TEST_BLOCK_MS)
    await net.pump()
    const all = decided(net.nodes)
    expect(all.map((f) => f.round)).toEqual([1n, 1n, 1n])
    expect(new Set(all.map((f) => hex(f.digest)))).toEqual(new Set([hex(all[0]?.digest as Uint8Array)]))
  })

  it('two of four down: nothing is decided, however long it waits', async () => {
    const net = network([2, 3])
    for (const n of net.nodes.values()) n.engine.start(1n)
    for (let i = 0; i < 6; i++) {
      net.timers.advance(TEST_BASE_MS * 2 ** i + TEST_BLOCK_MS)
      await net.pump()
    }
    expect(decided(net.nodes)).toEqual([])
    expect([...net.nodes.values()].every((n) => n.engine.round >= 5n)).toBe(true)
  })

  it('an equivocating proposer (A to one, B to two, votes for both) never gets two blocks decided', async () => {
    const byz = SIGNERS[0] as (typeof SIGNERS)[0]
    const net = network([1, 2, 3])
    for (const n of net.nodes.values()) n.engine.start(1n)
    const ppA = signPrePrepare(byz, 1n, 0n, fakeBlock(1n, 'A'), [])
    const ppB = signPrePrepare(byz, 1n, 0n, fakeBlock(1n, 'B'), [])
    await net.deliver([1], encodeMessage(ppA))
    await net.deliver([2, 3], encodeMessage(ppB))
    for (const pp of [ppA, ppB]) {
      await net.deliver([1, 2, 3], encodeMessage(signPrepare(byz, 1n, 0n, pp.digest)))
      await net.deliver(
        [1, 2, 3],
        encodeMessage(signCommit(byz, 1n, 0n, pp.digest, signCommittedSeal(pp.digest, 0n, byz.key))),
      )
    }
    // and time passes: round changes, the byzantine proposer stays silent afterwards
    for (let i = 0; i < 4; i++) {
      net.timers.advance(TEST_BASE_MS * 2 ** i + TEST_BLOCK_MS)
      await net.pump()
    }
    const digests = new Set(decided(net.nodes).map((f) => hex(f.digest)))
    expect(digests.size).toBeLessThanOrEqual(1)
    expect(digests.has(hex(ppA.digest))).toBe(false) // A had only two votes (the liar and node 1)
  })

  it('an equivocating proposer splitting the honest nodes 2:1 in every way: at most one block, and it is decided', async () => {
    for (const loner of [1, 2, 3]) {
      const byz = SIGNERS[0] as (typeof SIGNERS)[0]
      const net = network([1, 2, 3])
      for (const n of net.nodes.values()) n.engine.start(1n)
      const ppA = signPrePrepare(byz, 1n, 0n, fakeBlock(1n, `A${loner}`), [])
      const ppB = signPrePrepare(byz, 1n, 0n, fakeBlock(1n, `B${loner}`), [])
      const others = [1, 2, 3].filter((i) => i !== loner)
      await net.deliver([loner], encodeMessage(ppA))
      await net.deliver(others, encodeMessage(ppB))
      await net.deliver(others, encodeMessage(ppA)) // late second proposal reaches the others too
      for (let i = 0; i < 5; i++) {
        net.timers.advance(TEST_BASE_MS * 2 ** i + TEST_BLOCK_MS)
        await net.pump()
      }
      const all = decided(net.nodes)
      expect(new Set(all.map((f) => hex(f.digest))).size).toBe(1)
      const sealsOk = all.every(
        (f) => verifyCommittedSeals(f.digest, f.round, f.committedSeals, VALIDATORS).length >= 3,
      )
      expect(sealsOk).toBe(true)
    }
  })

  it('a validator that prepared passes its certificate on: the next proposer re-proposes the same block', async () => {
    const seen: { from: number; code: number; digest?: string }[] = []
    const net = network([0, 1, 2, 3], (from, wire) => {
      const m = decodeMessage(wire)
      seen.push({ from, code: m.code, digest: 'digest' in m ? hex(m.digest) : undefined })
    })
    for (const n of net.nodes.values()) n.engine.start(1n)
    // every COMMIT is lost: the block is prepared everywhere, decided nowhere
    const node = (i: number) => net.nodes.get(i) as Node
    const sends = [0, 1, 2, 3].map((i) => node(i).backend.broadcast)
    for (const i of [0, 1, 2, 3]) {
      const send = sends[i] as (wire: Uint8Array) => void
      node(i).backend.broadcast = (wire) => {
        if (decodeMessage(wire).code !== MessageCode.COMMIT) send(wire)
      }
    }
    net.timers.advance(0)
    await net.pump()
    const first = seen.find((s) => s.code === MessageCode.PREPREPARE)?.digest
    expect(decided(net.nodes)).toEqual([])
    for (const i of [0, 1, 2, 3]) node(i).backend.broadcast = sends[i] as (wire: Uint8Array) => void
    net.timers.advance(TEST_BASE_MS + TEST_BLOCK_MS)
    await net.pump()
    await settle()
    const all = decided(net.nodes)
    expect(all.length).toBeGreaterThanOrEqual(3)
    expect(new Set(all.map((f) => hex(f.digest)))).toEqual(new Set([first]))
    expect(all.every((f) => f.round === 1n)).toBe(true)
  })
})
