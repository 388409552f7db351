/**
 * CheckpointManager on a real base chain (anvil), with real secp256k1 signatures: continuity and
 * the range bound, the > 2/3 power rule, what a signature is bound to (root, child chain, base
 * chain, contract), signature form (order, duplicates, high s, v, length), validator-set changes
 * carried in checkpoints, RootChain numbering and the events uptime is read from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BoundContract, Json } from '../../scripts/dao/client.js'
import {
  BASE_CHAIN_ID,
  type BaseChain,
  CHECKPOINT_ID_STEP,
  type Checkpoint,
  checkpoint,
  checkpointDigest,
  type Domain,
  encodeCheckpoint,
  highS,
  sign,
  signCheckpoint,
  splitSignatures,
  startBaseChain,
  type Validator,
  validators,
} from './helpers.js'

const CHILD_CHAIN_ID = 4242n
const MAX_BLOCKS = 16n
const ROOT_A = `0x${'aa'.repeat(32)}`
const ROOT_B = `0x${'bb'.repeat(32)}`

let base: BaseChain
/** Six validators of power 1: five sign (> 2/3), four do not (exactly 2/3). */
const SIX = validators(6, 'six')
/** The set the six hand over to: four keys of powers 10, 20, 30, 40 (in address order). */
const NEXT = validators(4, 'next')
const NEXT_POWERS = [10n, 20n, 30n, 40n]

async function deployManager(signers: Validator[], powers: bigint[], maxBlocks = MAX_BLOCKS): Promise<BoundContract> {
  const { address } = await base.chain.deploy(base.deployer, 'CheckpointManager', [
    CHILD_CHAIN_ID,
    maxBlocks,
    signers.map((v) => v.address),
    powers,
  ])
  return base.chain.contract('CheckpointManager', address)
}

function domainOf(manager: BoundContract): Domain {
  return { childChainId: CHILD_CHAIN_ID, baseChainId: BASE_CHAIN_ID, manager: manager.address }
}

async function submit(manager: BoundContract, c: Checkpoint, signers: Validator[]): Promise<Json> {
  const sigs = signCheckpoint(signers, checkpointDigest(c, domainOf(manager)))
  return manager.write(base.deployer, 'submitCheckpoint', [encodeCheckpoint(c), sigs])
}

async function refusal(manager: BoundContract, c: Checkpoint, sigs: string): Promise<{ name: string; args: string[] }> {
  const r = await manager.revertOf(base.deployer, 'submitCheckpoint', [encodeCheckpoint(c), sigs])
  if (r === undefined) throw new Error('submitCheckpoint was accepted')
  return r
}

function signedBy(manager: BoundContract, c: Checkpoint, signers: Validator[]): string {
  return signCheckpoint(signers, checkpointDigest(c, domainOf(manager)))
}

beforeAll(async () => {
  base = await startBaseChain()
})

afterAll(async () => {
  await base?.stop()
})

describe('CheckpointManager: deployment', () => {
  it('stores the set and emits it as ValidatorSetUpdated(0)', async () => {
    const { address, receipt } = await base.chain.deploy(base.deployer, 'CheckpointManager', [
      CHILD_CHAIN_ID,
      MAX_BLOCKS,
      SIX.map((v) => v.address),
      SIX.map(() => 1n),
    ])
    const m = base.chain.contract('CheckpointManager', address)
    expect(await m.read('childChainId')).toBe(CHILD_CHAIN_ID)
    expect(await m.read('maxBlocks')).toBe(MAX_BLOCKS)
    expect(await m.read('CHECKPOINT_ID_STEP')).toBe(CHECKPOINT_ID_STEP)
    expect([...(await m.read('signers'))]).toEqual(SIX.map((v) => v.address))
    expect(await m.read('totalPower')).toBe(6n)
    expect(await m.read('powerOf', [SIX[3].address])).toBe(1n)
    expect(await m.read('powerOf', [NEXT[0].address])).toBe(0n)
    expect(await m.read('currentHeaderBlock')).toBe(0n)
    expect(await m.read('getLastChildBlock')).toBe(0n)
    const [event] = m.events(receipt)
    expect(event.name).toBe('ValidatorSetUpdated')
    expect(event.args.headerBlockId).toBe(0n)
    expect([...event.args.signers]).toEqual(SIX.map((v) => v.address))
    expect([...event.args.powers]).toEqual(SIX.map(() => 1n))
  })

  it('refuses a bad set, chain id or block bound', async () => {
    const addrs = SIX.map((v) => v.address)
    const ones = SIX.map(() => 1n)
    const reason = async (args: unknown[]): Promise<string> => {
      try {
        await base.chain.deploy(base.deployer, 'CheckpointManager', args)
      } catch (err) {
        const e = err as { reason?: string; args?: string[] }
        return `${e.reason}(${(e.args ?? []).join(',')})`
      }
      throw new Error('deployed')
    }
    expect(await reason([CHILD_CHAIN_ID, MAX_BLOCKS, [], []])).toBe('BadValidatorSet(empty)')
    expect(await reason([CHILD_CHAIN_ID, MAX_BLOCKS, addrs, ones.slice(1)])).toBe(
      'BadValidatorSet(signers and powers differ in length)',
    )
    expect(await reason([CHILD_CHAIN_ID, MAX_BLOCKS, [...addrs].reverse(), ones])).toBe(
      'BadValidatorSet(signers not strictly ascending)',
    )
    expect(await reason([CHILD_CHAIN_ID, MAX_BLOCKS, [addrs[0], addrs[0]], [1n, 1n]])).toBe(
      'BadValidatorSet(signers not strictly ascending)',
    )
    expect(await reason([CHILD_CHAIN_ID, MAX_BLOCKS, [`0x${'00'.repeat(20)}`, addrs[0]], [1n, 1n]])).toBe(
      'BadValidatorSet(zero signer)',
    )
    expect(await reason([CHILD_CHAIN_ID, MAX_BLOCKS, addrs, [...ones.slice(1), 0n]])).toBe(
      'BadValidatorSet(zero power)',
    )
    expect(await reason([CHILD_CHAIN_ID, MAX_BLOCKS, addrs.slice(0, 2), [2n ** 96n - 1n, 2n ** 96n]])).toBe(
      'BadValidatorSet(power above MAX_POWER)',
    )
    expect(await reason([0n, MAX_BLOCKS, addrs, ones])).toBe('BadChildChainId()')
    expect(await reason([CHILD_CHAIN_ID, 0n, addrs, ones])).toBe('BadMaxBlocks(0,65536)')
    expect(await reason([CHILD_CHAIN_ID, 65_537n, addrs, ones])).toBe('BadMaxBlocks(65537,65536)')
  })
})

describe('CheckpointManager: checkpoints', () => {
  let m: BoundContract
  const proposer = SIX[2].address

  beforeAll(async () => {
    m = await deployManager(
      SIX,
      SIX.map(() => 1n),
    )
  })

  it('the digest the contract computes is the one signed here', async () => {
    const c = checkpoint(proposer, 1n, 4n, ROOT_A)
    const onChain = await m.read('checkpointDigest', [c.proposer, c.start, c.end, c.root, c.newSigners, c.newPowers])
    expect(onChain).toBe(checkpointDigest(c, domainOf(m)))
    const change = { ...c, newSigners: NEXT.map((v) => v.address), newPowers: NEXT_POWERS }
    expect(await m.read('checkpointDigest', [c.proposer, 1n, 4n, c.root, change.newSigners, change.newPowers])).toBe(
      checkpointDigest(change, domainOf(m)),
    )
  })

  it('stores consecutive checkpoints as header blocks 10000, 20000 with their events', async () => {
    const first = checkpoint(proposer, 1n, 4n, ROOT_A)
    const r1 = await submit(m, first, SIX)
    const ev1 = m.events(r1)
    expect(ev1.map((e) => e.name)).toEqual(['NewHeaderBlock', 'CheckpointSigners'])
    expect(ev1[0].args.proposer).toBe(proposer)
    expect(ev1[0].args.headerBlockId).toBe(10_000n)
    expect(ev1[0].args.reward).toBe(0n)
    expect([ev1[0].args.start, ev1[0].args.end, ev1[0].args.root]).toEqual([1n, 4n, ROOT_A])
    expect(ev1[1].args.headerBlockId).toBe(10_000n)
    expect([...ev1[1].args.signers]).toEqual(SIX.map((v) => v.address))
    expect(await m.read('currentHeaderBlock')).toBe(10_000n)
    expect(await m.read('getLastChildBlock')).toBe(4n)
    const block = await base.chain.rpc('eth_getBlockByNumber', [r1.blockNumber, false])
    const stored = await m.read('headerBlocks', [10_000n])
    expect([stored.root, stored.start, stored.end, stored.createdAt, stored.proposer]).toEqual([
      ROOT_A,
      1n,
      4n,
      BigInt(block.timestamp),
      proposer,
    ])

    // five of six (> 2/3) suffice; the event names exactly who signed
    const five = SIX.filter((_, i) => i !== 4)
    const r2 = await submit(m, checkpoint(proposer, 5n, 5n + MAX_BLOCKS - 1n, ROOT_B), five)
    const ev2 = m.events(r2)
    expect(ev2[0].args.headerBlockId).toBe(20_000n)
    expect([...ev2[1].args.signers]).toEqual(five.map((v) => v.address))
    expect(await m.read('currentHeaderBlock')).toBe(20_000n)
    expect(await m.read('getLastChildBlock')).toBe(20n)
    const unknown = await m.read('headerBlocks', [30_000n])
    expect(unknown.createdAt).toBe(0n)
  })

  it('refuses a skip, an overlap, an empty range and a range longer than maxBlocks', async () => {
    const last = (await m.read('getLastChildBlock')) as bigint
    const at = (start: bigint, end: bigint) => checkpoint(proposer, start, end, ROOT_A)
    const skip = at(last + 2n, last + 4n)
    expect(await refusal(m, skip, signedBy(m, skip, SIX))).toEqual({
      name: 'NotContinuous',
      args: [String(last + 1n), String(last + 2n)],
    })
    const overlap = at(last, last + 4n)
    expect(await refusal(m, overlap, signedBy(m, overlap, SIX))).toEqual({
      name: 'NotContinuous',
      args: [String(last + 1n), String(last)],
    })
    const again = at(1n, 4n)
    expect((await refusal(m, again, signedBy(m, again, SIX))).name).toBe('NotContinuous')
    const empty = at(last + 1n, last)
    expect(await refusal(m, empty, signedBy(m, empty, SIX))).toEqual({
      name: 'EmptyRange',
      args: [String(last + 1n), String(last)],
    })
    const long = at(last + 1n, last + MAX_BLOCKS + 1n)
    expect(await refusal(m, long, signedBy(m, long, SIX))).toEqual({
      name: 'RangeTooLong',
      args: [String(MAX_BLOCKS + 1n), String(MAX_BLOCKS)],
    })
    // a single block and exactly maxBlocks are fine
    const one = at(last + 1n, last + 1n)
    expect(await m.revertOf(base.deployer, 'submitCheckpoint', [encodeCheckpoint(one), signedBy(m, one, SIX)])).toBe(
      undefined,
    )
  })

  it('refuses two thirds of the power and accepts more', async () => {
    const last = (await m.read('getLastChildBlock')) as bigint
    const c = checkpoint(proposer, last + 1n, last + 2n, ROOT_A)
    expect(await refusal(m, c, signedBy(m, c, SIX.slice(0, 4)))).toEqual({
      name: 'InsufficientPower',
      args: ['4', '6'],
    })
    expect(await refusal(m, c, '0x')).toEqual({ name: 'InsufficientPower', args: ['0', '6'] })
    await submit(m, c, SIX.slice(1))
    expect(await m.read('getLastChildBlock')).toBe(last + 2n)
  })

  it('counts a signature only for the digest it signed: another root, child chain, base chain or contract', async () => {
    const last = (await m.read('getLastChildBlock')) as bigint
    const c = checkpoint(proposer, last + 1n, last + 3n, ROOT_A)
    const domain = domainOf(m)
    const good = splitSignatures(signedBy(m, c, SIX))
    // the lowest validator signs something else: its signature recovers to a stranger
    const strays: [string, string][] = [
      ['another root', sign(SIX[0], checkpointDigest({ ...c, root: ROOT_B }, domain))],
      ['another child chain', sign(SIX[0], checkpointDigest(c, { ...domain, childChainId: CHILD_CHAIN_ID + 1n }))],
      ['another base chain', sign(SIX[0], checkpointDigest(c, { ...domain, baseChainId: 1n }))],
      ['another contract', sign(SIX[0], checkpointDigest(c, { ...domain, manager: SIX[5].address }))],
      ['another proposer', sign(SIX[0], checkpointDigest({ ...c, proposer: SIX[1].address }, domain))],
      ['a set change', sign(SIX[0], checkpointDigest({ ...c, newSigners: [SIX[0].address], newPowers: [1n] }, domain))],
    ]
    for (const [what, stray] of strays) {
      const r = await refusal(m, c, `0x${[stray, ...good.slice(1)].map((s) => s.slice(2)).join('')}`)
      expect(r.name, what).toBe('UnknownSigner')
      expect(r.args[0].toLowerCase(), what).not.toBe(SIX[0].address.toLowerCase())
    }
    // the same five honest signatures without the stray one carry the checkpoint
    await m.write(base.deployer, 'submitCheckpoint', [
      encodeCheckpoint(c),
      `0x${good
        .slice(1)
        .map((s) => s.slice(2))
        .join('')}`,
    ])
    expect(await m.read('getLastChildBlock')).toBe(last + 3n)
  })

  it('refuses a checkpoint accepted by one manager when it is sent, unchanged, to another', async () => {
    const [one, two] = [
      await deployManager(
        SIX,
        SIX.map(() => 1n),
      ),
      await deployManager(
        SIX,
        SIX.map(() => 1n),
      ),
    ]
    const c = checkpoint(proposer, 1n, 4n, ROOT_A)
    const sigs = signedBy(one, c, SIX)
    await one.write(base.deployer, 'submitCheckpoint', [encodeCheckpoint(c), sigs])
    expect(await one.read('currentHeaderBlock')).toBe(10_000n)
    const replay = await refusal(two, c, sigs)
    expect(replay.name).toBe('UnknownSigner')
    expect(SIX.map((v) => v.address)).not.toContain(replay.args[0])
    expect(await two.read('currentHeaderBlock')).toBe(0n)
  })

  it('refuses a set of signatures that is not strictly ascending, malleable or malformed', async () => {
    const last = (await m.read('getLastChildBlock')) as bigint
    const c = checkpoint(proposer, last + 1n, last + 1n, ROOT_A)
    const sigs = splitSignatures(signedBy(m, c, SIX))
    const join = (list: string[]) => `0x${list.map((s) => s.slice(2)).join('')}`
    const swapped = [sigs[1], sigs[0], ...sigs.slice(2)]
    expect(await refusal(m, c, join(swapped))).toEqual({
      name: 'SignaturesNotAscending',
      args: [SIX[1].address, SIX[0].address],
    })
    const duplicated = [sigs[0], sigs[1], sigs[1], sigs[2], sigs[3]]
    expect(await refusal(m, c, join(duplicated))).toEqual({
      name: 'SignaturesNotAscending',
      args: [SIX[1].address, SIX[1].address],
    })
    const twin = [sigs[0], highS(sigs[1]), ...sigs.slice(2)]
    expect(await refusal(m, c, join(twin))).toEqual({ name: 'HighS', args: ['1'] })
    const badV = `${sigs[2].slice(0, -2)}01`
    expect(await refusal(m, c, join([sigs[0], sigs[1], badV, ...sigs.slice(3)]))).toEqual({
      name: 'BadSignatureV',
      args: ['2', '1'],
    })
    expect(await refusal(m, c, join(sigs).slice(0, -2))).toEqual({
      name: 'BadSignaturesLength',
      args: [String(6 * 65 - 1)],
    })
    const zeroR = `0x${'00'.repeat(32)}${sigs[0].slice(66)}`
    expect(await refusal(m, c, join([zeroR, ...sigs.slice(1)]))).toEqual({ name: 'InvalidSignature', args: ['0'] })
  })

  it('changes the set only on > 2/3 of the current power, then requires the new set', async () => {
    let last = (await m.read('getLastChildBlock')) as bigint
    const change: Checkpoint = {
      ...checkpoint(proposer, last + 1n, last + 2n, ROOT_A),
      newSigners: NEXT.map((v) => v.address),
      newPowers: NEXT_POWERS,
    }
    // the new set's own keys cannot bring themselves in
    expect((await refusal(m, change, signedBy(m, change, NEXT))).name).toBe('UnknownSigner')
    expect(await refusal(m, change, signedBy(m, change, SIX.slice(2)))).toEqual({
      name: 'InsufficientPower',
      args: ['4', '6'],
    })
    // malformed sets are refused before any signature is looked at
    const bad = async (newSigners: string[], newPowers: bigint[]) =>
      (await refusal(m, { ...change, newSigners, newPowers }, '0x')).args[0]
    const next = NEXT.map((v) => v.address)
    expect(await bad([], NEXT_POWERS)).toBe('empty')
    expect(await bad(next, NEXT_POWERS.slice(1))).toBe('signers and powers differ in length')
    expect(await bad([...next].reverse(), NEXT_POWERS)).toBe('signers not strictly ascending')
    expect(await bad(next, [0n, ...NEXT_POWERS.slice(1)])).toBe('zero power')

    const receipt = await submit(m, change, SIX.slice(1))
    const events = m.events(receipt)
    expect(events.map((e) => e.name)).toEqual(['NewHeaderBlock', 'CheckpointSigners', 'ValidatorSetUpdated'])
    const id = events[0].args.headerBlockId as bigint
    expect(events[2].args.headerBlockId).toBe(id)
    expect([...events[2].args.signers]).toEqual(next)
    expect([...events[2].args.powers]).toEqual(NEXT_POWERS)
    expect([...(await m.read('signers'))]).toEqual(next)
    expect(await m.read('totalPower')).toBe(100n)
    expect(await m.read('powerOf', [NEXT[3].address])).toBe(40n)
    expect(await m.read('powerOf', [SIX[1].address])).toBe(0n)
    last = last + 2n

    // the old set no longer signs
    const after = checkpoint(proposer, last + 1n, last + 1n, ROOT_B)
    const oldSigs = signedBy(m, after, SIX)
    expect(await refusal(m, after, oldSigs)).toEqual({ name: 'UnknownSigner', args: [SIX[0].address] })
    // the new set's power counts: 40 + 20 = 60 of 100 is not enough, 40 + 30 = 70 is
    expect(await refusal(m, after, signedBy(m, after, [NEXT[3], NEXT[1]]))).toEqual({
      name: 'InsufficientPower',
      args: ['60', '100'],
    })
    const r = await submit(m, after, [NEXT[3], NEXT[2]])
    expect([...m.events(r)[1].args.signers]).toEqual([NEXT[2].address, NEXT[3].address])
    expect(await m.read('getLastChildBlock')).toBe(last + 1n)
    expect(await m.read('currentHeaderBlock')).toBe(id + CHECKPOINT_ID_STEP)
  })
})
