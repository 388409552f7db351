/**
 * ExitVault against receipts tries built here with @ethereumjs/mpt from receipts we construct —
 * the shapes a dev node's one-transaction blocks never show: 300 receipts (branches, an extension
 * over the keys 0x81xx, keys 0x80, 0x01-0x7f and 0x8180-0x82012b), legacy and typed receipts, a
 * burn that is not a receipt's first log, a one-block checkpoint (no siblings) and a padded one.
 * Headers are Prague-shaped RLP lists made here; checkpoints over them are signed by real keys.
 */
import { createMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { getBytes, keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BoundContract } from '../../scripts/dao/client.js'
import { encodeExitPayload } from './exitPayload.js'
import {
  BASE_CHAIN_ID,
  type BaseChain,
  checkpoint,
  checkpointDigest,
  encodeCheckpoint,
  merkleProof,
  merkleRoot,
  signCheckpoint,
  startBaseChain,
  validators,
} from './helpers.js'
import { type Block, block, burnOf, CHILD_TOKEN, exitParts, receiptValue } from './synthetic.js'

const CHILD_CHAIN_ID = 777n
const RECEIPTS = 300
const VALIDATORS = validators(3, 'synthetic')

let base: BaseChain
let manager: BoundContract
let vault: BoundContract
let baseToken: BoundContract

async function commit(start: bigint, leaves: string[]): Promise<bigint> {
  const c = checkpoint(VALIDATORS[1].address, start, start + BigInt(leaves.length) - 1n, merkleRoot(leaves))
  const digest = checkpointDigest(c, {
    childChainId: CHILD_CHAIN_ID,
    baseChainId: BASE_CHAIN_ID,
    manager: manager.address,
  })
  const r = await manager.write(base.deployer, 'submitCheckpoint', [
    encodeCheckpoint(c),
    signCheckpoint(VALIDATORS, digest),
  ])
  return manager.events(r)[0].args.headerBlockId as bigint
}

let single: Block
let big: Block
let singleId: bigint
let bigId: bigint
let bigLeaves: string[]

beforeAll(async () => {
  base = await startBaseChain()
  const m = await base.chain.deploy(base.deployer, 'CheckpointManager', [
    CHILD_CHAIN_ID,
    16n,
    VALIDATORS.map((v) => v.address),
    [1n, 1n, 1n],
  ])
  manager = base.chain.contract('CheckpointManager', m.address)
  const t = await base.chain.deploy(base.deployer, 'BaseToken', ['Base', 'BSE', 10n ** 30n])
  baseToken = base.chain.contract('BaseToken', t.address)
  const v = await base.chain.deploy(base.deployer, 'ExitVault', [manager.address])
  vault = base.chain.contract('ExitVault', v.address)
  await vault.write(base.deployer, 'mapToken', [CHILD_TOKEN, baseToken.address])
  await baseToken.write(base.deployer, 'transfer', [vault.address, 10n ** 29n])

  // checkpoint 10000: block 1 alone (one receipt); 20000: blocks 2-4 (block 3 has 300 receipts), padded to 4 leaves
  single = await block(1n, 1)
  singleId = await commit(1n, [single.hash])
  big = await block(3n, RECEIPTS)
  bigLeaves = [keccak256('0x02'), big.hash, keccak256('0x04')]
  bigId = await commit(2n, bigLeaves)
}, 60_000)

afterAll(async () => {
  await base?.stop()
})

describe('ExitVault: constructed receipts tries', () => {
  it('the tries have the shapes under test', async () => {
    expect((await createMerkleProof(single.trie, RLP.encode(0))).length).toBe(1)
    const lengths = new Set<number>()
    let extensions = 0
    for (let i = 0; i < RECEIPTS; i++) {
      const proof = await createMerkleProof(big.trie, RLP.encode(i))
      lengths.add(proof.length)
      for (const node of proof) {
        const items = RLP.decode(node) as Uint8Array[]
        if (items.length === 2 && items[0][0] >> 4 < 2) extensions++
      }
    }
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(3)
    expect(extensions).toBeGreaterThan(0)
  })

  it('pays a one-block checkpoint (no siblings) and receipts across the big trie, each once', async () => {
    const one = await exitParts(single, singleId, 1n, [single.hash], 0)
    expect(one.blockProof.length).toBe(0)
    await vault.write(base.deployer, 'exit', [encodeExitPayload(one, 'polygon')])
    expect(await baseToken.read('balanceOf', [burnOf(0).owner])).toBe(burnOf(0).amount)

    for (const i of [0, 1, 2, 3, 127, 128, 129, 255, 256, 299]) {
      const p = await exitParts(big, bigId, 2n, bigLeaves, i)
      const receipt = await vault.write(base.deployer, 'exit', [
        encodeExitPayload(p, i % 2 === 0 ? 'bytes' : 'inPlace'),
      ])
      const [event] = vault.events(receipt)
      expect(event.args.owner, `receipt ${i}`).toBe(burnOf(i).owner)
      expect(event.args.amount, `receipt ${i}`).toBe(burnOf(i).amount)
      const again = await vault.revertOf(base.deployer, 'exit', [encodeExitPayload(p)])
      expect(again?.name, `receipt ${i}`).toBe('ExitAlreadyProcessed')
    }
    // block 1's receipt 0 and block 3's receipt 0 are different exits (the block hash is in the id)
    expect(await baseToken.read('balanceOf', [burnOf(0).owner])).toBe(2n * burnOf(0).amount)
  })

  it('refuses the non-burn log, a proof of another key, a leaf moved in the tree', async () => {
    const p = await exitParts(big, bigId, 2n, bigLeaves, 3)
    expect(await vault.revertOf(base.deployer, 'exit', [encodeExitPayload({ ...p, logIndex: 0n })])).toEqual({
      name: 'NotATransfer',
      args: [],
    })
    // receipt 5's proof and key with receipt 4 claimed: the proven value differs
    const other = await exitParts(big, bigId, 2n, bigLeaves, 5)
    expect(
      await vault.revertOf(base.deployer, 'exit', [encodeExitPayload({ ...other, receipt: receiptValue(4) })]),
    ).toEqual({
      name: 'ReceiptMismatch',
      args: [],
    })
    // the right key (0x03) but the proof of 0x05: root and the 0x0? branch match, the leaf does not
    expect(await vault.revertOf(base.deployer, 'exit', [encodeExitPayload({ ...p, proof: other.proof })])).toEqual({
      name: 'MptBadNodeHash',
      args: ['2'],
    })
    // block 3's header claimed at position 4 (a padding leaf's neighbour): its number pins it to 3
    expect(await vault.revertOf(base.deployer, 'exit', [encodeExitPayload({ ...p, blockNumber: 4n })])).toEqual({
      name: 'HeaderNumberMismatch',
      args: ['3', '4'],
    })
    // and block 2's leaf (a hash with no header behind it) cannot be opened
    const wrongSibling = getBytes(merkleProof(bigLeaves, 0))
    expect(
      (await vault.revertOf(base.deployer, 'exit', [encodeExitPayload({ ...p, blockProof: wrongSibling })]))?.name,
    ).toBe('BadBlockProof')
  })
})
