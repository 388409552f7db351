/**
 * The checkpoint service against an in-memory CheckpointManager that checks what the Solidity
 * contract checks (continuity, length, signatures over the digest, ascending signers, > 2/3 of the
 * power), with the data and the digest decoded and rebuilt by viem — an ABI encoder that is not
 * ours. Four validators gossip over an in-memory bus; time is a number the test moves.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { concat, decodeAbiParameters, encodeAbiParameters, type Hex, keccak256 as viemKeccak } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'

import { createLogger } from '../../log.js'
import { keccak256 } from '../../util/keccak.js'
import { addressOfPrivateKey } from '../../config/accounts.js'
import { newPrivateKey } from '../../config/keys.js'
import { BaseChainError, CheckpointVoteError } from './baseErrors.js'
import { type CheckpointData, encodeCheckpointData } from './managerAbi.js'
import { proposerOrder, reducePowers } from './proposer.js'
import { checkpointRoot } from './root.js'
import type { CheckpointBase, CheckpointParams, ChildChain, ManagerView, SubmissionStatus } from './ports.js'
import { CheckpointService } from './service.js'
import { FileCheckpointStateStore, MemoryCheckpointStateStore } from './serviceState.js'
import {
  checkpointDigest,
  decodeVoteWire,
  encodeVoteWire,
  recoverCheckpointSigner,
  signCheckpoint,
} from './vote.js'

const log = createLogger('silent')
const CHILD = 7861n
const BASE = 31337n
const MANAGER = hexToBytes('0x00000000000000000000000000000000000c0ffe')
const INTERVAL = 10_000
const PARAMS: CheckpointParams = {
  intervalMs: INTERVAL,
  maxBlocks: 16,
  baseConfirmations: 1,
  graceMs: 1_000,
  proposerTimeoutMs: 5_000,
  pollIntervalMs: 100,
}

const addr = (key: Uint8Array) => hexToBytes(addressOfPrivateKey(key).toLowerCase() as Hex)
const blockHash = (n: bigint, fork = '') => keccak256(new TextEncoder().encode(`block ${n}${fork}`))

/** The contract, in memory, checking as CheckpointManager.sol does (ABI and digest through viem). */
class FakeManager implements CheckpointBase {
  signers: Uint8Array[]
  powers: bigint[]
  checkpoints: { start: bigint; end: bigint; root: Hex; signers: Hex[]; createdAt: bigint }[] = []
  sent: Hex[] = []
  mempool = new Map<string, { data: Uint8Array; sigs: Uint8Array }>()
  down = false
  nonce = 0n
  time = () => 0n

  constructor(signers: Uint8Array[], powers: bigint[]) {
    const order = signers.map((s, i) => ({ s, p: powers[i] as bigint })).sort((a, b) => Buffer.compare(a.s, b.s))
    this.signers = order.map((o) => o.s)
    this.powers = order.map((o) => o.p)
  }

  async read(): Promise<ManagerView> {
    if (this.down) throw new BaseChainError('unreachable', 'down')
    const last = this.checkpoints.at(-1)
    return {
      count: BigInt(this.checkpoints.length),
      lastEnd: last?.end ?? 0n,
      lastCreatedAt: last?.createdAt,
      signers: this.signers,
      powers: this.powers,
      total: this.powers.reduce((a, b) => a + b, 0n),
    }
  }

  async head(): Promise<bigint> {
    return 100n
  }

  /** submitCheckpoint's checks; returns the error name or undefined. */
  check(data: Uint8Array, sigs: Uint8Array): string | undefined {
    const [proposer, start, end, root, newSigners, newPowers] = decodeAbiParameters(
      [{ type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'address[]' }, { type: 'uint256[]' }],
      bytesToHex(data) as Hex,
    )
    const lastEnd = this.checkpoints.at(-1)?.end ?? 0n
    if (start !== lastEnd + 1n) return 'NotContinuous'
    if (end < start || end - start + 1n > BigInt(PARAMS.maxBlocks)) return 'RangeTooLong'
    const digest = viemKeccak(
      concat([
        '0x01',
        encodeAbiParameters(
          [
            { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' },
            { type: 'uint256' }, { type: 'uint256' }, { type: 'address' }, { type: 'bytes32' },
          ],
          [proposer, start, end, root, CHILD, BASE, bytesToHex(MANAGER) as Hex,
            viemKeccak(encodeAbiParameters([{ type: 'address[]' }, { type: 'uint256[]' }], [newSigners, newPowers]))],
        ),
      ]),
    )
    if (sigs.length % 65 !== 0) return 'BadSignaturesLength'
    let signed = 0n
    let previous = ''
    for (let i = 0; i < sigs.length / 65; i++) {
      const signer = bytesToHex(recoverCheckpointSigner(hexToBytes(digest), sigs.subarray(i * 65, i * 65 + 65)))
      if (signer <= previous) return 'SignaturesNotAscending'
      previous = signer
      const index = this.signers.findIndex((s) => bytesToHex(s) === signer)
      if (index === -1) return 'UnknownSigner'
      signed += this.powers[index] as bigint
    }
    const total = this.powers.reduce((a, b) => a + b, 0n)
    if (3n * signed <= 2n * total) return 'InsufficientPower'
    return undefined
  }

  async prepare(data: Uint8Array, sigs: Uint8Array) {
    if (this.down) throw new BaseChainError('unreachable', 'down')
    const why = this.check(data, sigs)
    if (why !== undefined) throw new Error(`reverted: ${why}`)
    const raw = Uint8Array.from([...data, ...sigs])
    const hash = keccak256(raw)
    this.mempool.set(bytesToHex(hash), { data, sigs })
    return { raw, hash, nonce: this.nonce++ }
  }

  async send(raw: Uint8Array): Promise<void> {
    if (this.down) throw new BaseChainError('unreachable', 'down')
    this.sent.push(bytesToHex(keccak256(raw)) as Hex)
  }

  /** Mines every sent transaction: the first valid one per range commits. */
  mine(): void {
    for (const hash of this.sent) {
      const tx = this.mempool.get(hash)
      if (tx === undefined || this.check(tx.data, tx.sigs) !== undefined) continue
      const [, start, end, root] = decodeAbiParameters(
        [{ type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }],
        bytesToHex(tx.data.subarray(0, 128)) as Hex,
      )
      const signers = Array.from({ length: tx.sigs.length / 65 }, (_, i) => tx.sigs.subarray(i * 65, i * 65 + 65))
      this.checkpoints.push({ start, end, root, signers: signers.map((s) => bytesToHex(s) as Hex), createdAt: this.time() })
    }
    this.mined.push(...this.sent)
    this.sent = []
  }
  mined: Hex[] = []

  async status(txHash: Uint8Array): Promise<SubmissionStatus> {
    const hex = bytesToHex(txHash) as Hex
    if (this.mined.includes(hex)) return { state: 'mined', ok: true, blockNumber: 100n }
    return this.sent.includes(hex) ? { state: 'pending' } : { state: 'unknown' }
  }
}

interface Net {
  keys: Uint8Array[]
  manager: FakeManager
  services: CheckpointService[]
  online: boolean[]
  now: { ms: number }
  head: { n: bigint }
  /** Runs a tick on every online service and lets the gossip settle. */
  round(): Promise<void>
}

function childChain(head: { n: bigint }, fork = ''): ChildChain {
  return {
    head: () => head.n,
    hashOf: (n) => (n <= head.n ? blockHash(n, fork) : undefined),
    timeOf: (n) => (n <= head.n ? 0n : undefined),
    daoSetAt: async () => [],
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r))
}

/** Index of the first proposer (checkpoint 0, rank 0) among `keys`. */
function firstProposer(keys: Uint8Array[], manager: FakeManager): number {
  const first = bytesToHex(proposerOrder(manager.signers.map((signer) => ({ signer, power: 1n })), 0n)[0] as Uint8Array)
  return keys.findIndex((k) => bytesToHex(addr(k)) === first)
}

/** `forkFirstProposer`: the first proposer's chain has other block hashes than everyone else's. */
function network(n: number, opts: { forkFirstProposer?: boolean } = {}): Net {
  const keys = Array.from({ length: n }, () => newPrivateKey())
  const manager = new FakeManager(keys.map(addr), keys.map(() => 1n))
  const forkOf = opts.forkFirstProposer === true ? firstProposer(keys, manager) : -1
  const now = { ms: 0 }
  manager.time = () => BigInt(Math.floor(now.ms / 1000))
  const head = { n: 0n }
  const online = keys.map(() => true)
  const services: CheckpointService[] = []
  keys.forEach((key, i) => {
    services.push(
      new CheckpointService({
        childChainId: CHILD,
        baseChainId: BASE,
        manager: MANAGER,
        params: PARAMS,
        base: manager,
        chain: childChain(head, forkOf === i ? 'fork' : ''),
        signer: { key, address: addr(key) },
        broadcast: (wire) => {
          services.forEach((s, j) => {
            if (j !== i && online[j] && online[i]) s.receive(wire)
          })
        },
        store: new MemoryCheckpointStateStore(),
        log,
        now: () => now.ms,
      }),
    )
  })
  return {
    keys,
    manager,
    services,
    online,
    now,
    head,
    async round() {
      for (const [i, s] of services.entries()) if (online[i]) await s.tick()
      await settle()
    },
  }
}

/** Moves time and ticks until the manager holds `count` checkpoints (or gives up). */
async function runUntil(net: Net, count: number, maxRounds = 60): Promise<void> {
  for (let r = 0; r < maxRounds && net.manager.checkpoints.length < count; r++) {
    await net.round()
    net.manager.mine()
    net.now.ms += 500
  }
}

describe('proposer priority', () => {
  const member = (byte: number, power: bigint) => ({ signer: Uint8Array.from({ length: 20 }, () => byte), power })

  it('rotates equal powers in address order, one each per round', () => {
    const set = [member(3, 5n), member(1, 5n), member(2, 5n)]
    const first = [0n, 1n, 2n, 3n, 4n, 5n].map((k) => (proposerOrder(set, k)[0] as Uint8Array)[0])
    expect(first).toEqual([1, 2, 3, 1, 2, 3])
  })

  it('gives a member proposals in proportion to its power', () => {
    const set = [member(1, 300n), member(2, 100n)]
    const period = [0n, 1n, 2n, 3n].map((k) => (proposerOrder(set, k)[0] as Uint8Array)[0])
    expect(period.filter((b) => b === 1)).toHaveLength(3)
    expect(period.filter((b) => b === 2)).toHaveLength(1)
    // the same at any later period: a function of k alone
    expect([400n, 401n, 402n, 403n].map((k) => (proposerOrder(set, k)[0] as Uint8Array)[0])).toEqual(period)
  })

  it('lists every member as handover order, and stays bounded for stakes in wei and huge counts', () => {
    const set = [member(1, 222_222n * 10n ** 18n + 1n), member(2, 10n ** 24n), member(3, 7n)]
    const order = proposerOrder(set, 10n ** 30n)
    expect(new Set(order.map((s) => s[0]))).toEqual(new Set([1, 2, 3]))
    expect(reducePowers(set.map((m) => m.power)).every((p) => p >= 1n)).toBe(true)
  })
})

describe('votes', () => {
  it('round-trips through the wire and recovers its signer; the digest matches viem', () => {
    const key = newPrivateKey()
    const c: CheckpointData = { proposer: addr(key), start: 1n, end: 9n, root: blockHash(1n), newSigners: [addr(key)], newPowers: [5n] }
    const p = { ...c, childChainId: CHILD, baseChainId: BASE, manager: MANAGER }
    const signature = signCheckpoint(checkpointDigest(p), key)
    expect([27, 28]).toContain(signature[64])
    const back = decodeVoteWire(encodeVoteWire({ checkpoint: c, signature }))
    expect(bytesToHex(recoverCheckpointSigner(checkpointDigest({ ...back.checkpoint, childChainId: CHILD, baseChainId: BASE, manager: MANAGER }), back.signature))).toBe(bytesToHex(addr(key)))
    // data as abi.encode(address, uint256, uint256, bytes32, address[], uint256[]) reads back in viem
    const decoded = decodeAbiParameters(
      [{ type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'address[]' }, { type: 'uint256[]' }],
      bytesToHex(encodeCheckpointData(c)) as Hex,
    )
    expect(decoded[1]).toBe(1n)
    expect(decoded[2]).toBe(9n)
    expect((decoded[4] as string[]).map((a) => a.toLowerCase())).toEqual([bytesToHex(addr(key))])
    expect(decoded[5]).toEqual([5n])
  })

  it('refuses a malformed vote', () => {
    expect(() => decodeVoteWire(Uint8Array.of(0x43, 0xc0))).toThrow(CheckpointVoteError)
    expect(() => decodeVoteWire(Uint8Array.of(0x53))).toThrow(/not a checkpoint vote/)
  })
})

describe('CheckpointService', () => {
  it('checkpoints consecutive ranges with every signature, no gap, no overlap', async () => {
    const net = network(4)
    net.head.n = 5n
    net.now.ms = INTERVAL + 1
    await runUntil(net, 1)
    expect(net.manager.checkpoints).toHaveLength(1)
    const first = net.manager.checkpoints[0]
    expect([first?.start, first?.end]).toEqual([1n, 5n])
    expect(first?.signers).toHaveLength(4)
    expect(first?.root).toBe(bytesToHex(checkpointRoot([1n, 2n, 3n, 4n, 5n].map((n) => blockHash(n)))))
    // 30 blocks later: max_blocks 16 splits the backlog into [6, 21] and [22, 35], sent back to back
    net.head.n = 35n
    net.now.ms += INTERVAL
    await runUntil(net, 3)
    expect(net.manager.checkpoints.map((c) => [c.start, c.end])).toEqual([
      [1n, 5n],
      [6n, 21n],
      [22n, 35n],
    ])
    expect(net.manager.checkpoints.every((c) => c.signers.length === 4)).toBe(true)
    expect(net.manager.mined).toHaveLength(3)
  })

  it('goes on with 3 of 4 after the grace window, and makes none with 2 of 4', async () => {
    const net = network(4)
    net.head.n = 3n
    net.now.ms = INTERVAL + 1
    // whoever proposes first, stop another validator
    const proposer = firstProposer(net.keys, net.manager)
    const others = net.keys.map((_, i) => ({ i })).filter((x) => x.i !== proposer)
    net.online[(others[0] as { i: number }).i] = false
    await runUntil(net, 1)
    expect(net.manager.checkpoints).toHaveLength(1)
    expect(net.manager.checkpoints[0]?.signers).toHaveLength(3)

    net.online[(others[1] as { i: number }).i] = false
    net.head.n = 8n
    net.now.ms += INTERVAL
    await runUntil(net, 2, 40)
    expect(net.manager.checkpoints).toHaveLength(1)
    expect(net.manager.sent).toHaveLength(0)

    // back: the checkpoint resumes from where the contract is
    net.online.fill(true)
    await runUntil(net, 2, 200)
    expect(net.manager.checkpoints.map((c) => [c.start, c.end])).toEqual([
      [1n, 3n],
      [4n, 8n],
    ])
  })

  it('never signs a proposal whose root its chain does not give, and does not count its votes', async () => {
    // the first proposer's chain differs: its proposal carries a root nobody else reproduces
    const net = network(4, { forkFirstProposer: true })
    net.head.n = 4n
    net.now.ms = INTERVAL + 1
    const f = firstProposer(net.keys, net.manager)
    const wrong = { proposer: addr(net.keys[f] as Uint8Array), start: 1n, end: 4n, root: checkpointRoot([1n, 2n, 3n, 4n].map((n) => blockHash(n, 'fork'))), newSigners: [], newPowers: [] }
    const honest = net.services[(f + 1) % 4] as CheckpointService
    await honest.tick()
    await expect(honest.checkProposal({ ...wrong, childChainId: CHILD, baseChainId: BASE, manager: MANAGER })).rejects.toMatchObject({
      reason: 'wrong-root',
    })
    // every honest validator refuses it (the proposer's own signature is not enough)
    const sig = signCheckpoint(checkpointDigest({ ...wrong, childChainId: CHILD, baseChainId: BASE, manager: MANAGER }), net.keys[f] as Uint8Array)
    honest.receive(encodeVoteWire({ checkpoint: wrong, signature: sig }))
    await settle()
    expect(honest.proposals().every((p) => bytesToHex(p.root) !== bytesToHex(wrong.root))).toBe(true)
    // the honest three still checkpoint the real chain once the fork's turn times out
    net.online[f] = false
    net.now.ms += PARAMS.proposerTimeoutMs
    await runUntil(net, 1, 100)
    expect(net.manager.checkpoints[0]?.root).toBe(bytesToHex(checkpointRoot([1n, 2n, 3n, 4n].map((n) => blockHash(n)))))
  })

  it('ignores a replayed signature (another chain id) and a signer outside the contract', async () => {
    const net = network(4)
    net.head.n = 2n
    net.now.ms = INTERVAL + 1
    const f = firstProposer(net.keys, net.manager)
    const proposerKey = net.keys[f] as Uint8Array
    const svc = net.services[(f + 1) % 4] as CheckpointService
    await svc.tick()
    const c = { proposer: addr(proposerKey), start: 1n, end: 2n, root: checkpointRoot([blockHash(1n), blockHash(2n)]), newSigners: [], newPowers: [] }
    // signed for another child chain: recovers to a stranger here
    const replayed = signCheckpoint(checkpointDigest({ ...c, childChainId: CHILD + 1n, baseChainId: BASE, manager: MANAGER }), proposerKey)
    svc.receive(encodeVoteWire({ checkpoint: c, signature: replayed }))
    // a correct signature by a key the contract does not know
    const stranger = newPrivateKey()
    const foreign = signCheckpoint(checkpointDigest({ ...c, childChainId: CHILD, baseChainId: BASE, manager: MANAGER }), stranger)
    svc.receive(encodeVoteWire({ checkpoint: c, signature: foreign }))
    await settle()
    expect(svc.proposals()).toHaveLength(0)
    // the proposer's real vote is counted (and this validator adds its own)
    const real = signCheckpoint(checkpointDigest({ ...c, childChainId: CHILD, baseChainId: BASE, manager: MANAGER }), proposerKey)
    svc.receive(encodeVoteWire({ checkpoint: c, signature: real }))
    await settle()
    const [p] = svc.proposals()
    expect(p?.signers.map((s) => bytesToHex(s)).sort()).toEqual([bytesToHex(addr(proposerKey)), bytesToHex(addr(net.keys[(f + 1) % 4] as Uint8Array))].sort())
  })

  it('a base chain that is down delays checkpoints, then they resume with no gap', async () => {
    const net = network(4)
    net.head.n = 3n
    net.now.ms = INTERVAL + 1
    await runUntil(net, 1)
    net.manager.down = true
    net.head.n = 9n
    net.now.ms += INTERVAL
    for (let r = 0; r < 10; r++) {
      await net.round()
      net.now.ms += 500
    }
    expect(net.manager.checkpoints).toHaveLength(1)
    net.manager.down = false
    await runUntil(net, 2, 400)
    expect(net.manager.checkpoints.map((c) => [c.start, c.end])).toEqual([
      [1n, 3n],
      [4n, 9n],
    ])
  })
})

describe('persistence', () => {
  let dir: string | undefined
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it('a restarted proposer finds its pending submission and does not send the checkpoint again', async () => {
    const net = network(4)
    net.head.n = 3n
    net.now.ms = INTERVAL + 1
    // run until a submission is sent, but do not mine it
    for (let r = 0; r < 20 && net.manager.sent.length === 0; r++) {
      await net.round()
      net.now.ms += 500
    }
    expect(net.manager.sent).toHaveLength(1)
    const index = net.services.findIndex((s) => s.proposals().some((p) => p.submitted !== undefined))
    expect(index).toBeGreaterThanOrEqual(0)
    // a fresh service over the same saved state, as after a restart
    const saved = new MemoryCheckpointStateStore()
    const pending = net.services[index]?.proposals().find((p) => p.submitted !== undefined)
    saved.save({ manager: bytesToHex(MANAGER), pending: { start: 1n, end: 3n, root: bytesToHex(pending?.root as Uint8Array), txHash: pending?.submitted as string, nonce: 0n, sentAtMs: net.now.ms } })
    const restarted = new CheckpointService({
      childChainId: CHILD,
      baseChainId: BASE,
      manager: MANAGER,
      params: { ...PARAMS, graceMs: 0 },
      base: net.manager,
      chain: childChain(net.head),
      signer: { key: net.keys[index] as Uint8Array, address: addr(net.keys[index] as Uint8Array) },
      broadcast: () => {},
      store: saved,
      log,
      now: () => net.now.ms,
    })
    for (let r = 0; r < 5; r++) {
      await restarted.tick()
      net.now.ms += 500
    }
    expect(net.manager.sent).toHaveLength(1) // still only the first one
    net.manager.mine()
    await restarted.tick()
    expect(net.manager.checkpoints).toHaveLength(1)
    expect(saved.load()?.pending).toBeUndefined()
  })

  it('writes its file atomically and ignores an unreadable one', () => {
    dir = mkdtempSync(join(tmpdir(), 'ibex-checkpoint-state-'))
    const file = join(dir, 'checkpoint-state.json')
    const problems: string[] = []
    const store = new FileCheckpointStateStore(file, (r) => problems.push(r))
    expect(store.load()).toBeUndefined()
    const state = { manager: '0xabc', pending: { start: 1n, end: 9n, root: '0x01', txHash: '0x02', nonce: 7n, sentAtMs: 5 } }
    store.save(state)
    expect(store.load()).toEqual(state)
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1)
    writeFileSync(file, '{ half')
    expect(store.load()).toBeUndefined()
    expect(problems).toHaveLength(1)
  })
})
