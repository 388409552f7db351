/**
 * Gas figures of the checkpoint contracts on anvil (Prague rules), printed as a table and held to
 * budgets: submitCheckpoint with 4 and 150 validators, every one signing and just over 2/3; a
 * validator-set change of the whole set; exits proven through a 1,024-block checkpoint. The numbers
 * are a transaction's whole gasUsed (21,000 base and calldata included), from the second
 * checkpoint on (the first one also creates the currentHeaderBlock slot).
 */
import { createMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BoundContract, Json } from '../../scripts/dao/client.js'
import { encodeExitPayload } from './exitPayload.js'
import {
  BASE_CHAIN_ID,
  type BaseChain,
  type Checkpoint,
  checkpoint,
  checkpointDigest,
  encodeCheckpoint,
  merkleRoot,
  signCheckpoint,
  startBaseChain,
  type Validator,
  validators,
} from './helpers.js'
import { block, burnLogIndex, CHILD_TOKEN, exitParts } from './synthetic.js'

const CHILD_CHAIN_ID = 4242n
/** The checkpoint length the figures assume (Polygon's bound); it does not change submit's gas. */
const MAX_BLOCKS = 1024n
/** Validator counts measured: a small network and the DAO's full 150 seats. */
const SET_SIZES = [4, 150]
/**
 * Budgets (gas): what the figures must stay under, with room for the base chain's pricing to move.
 * A fully signed 150-validator checkpoint must fit easily in any base chain's block.
 */
const BUDGET = {
  checkpoint4: 150_000,
  checkpoint150: 1_500_000,
  setChange150: 3_000_000,
  exit: 300_000,
}

let base: BaseChain
const rows: [string, number][] = []

function record(what: string, receipt: Json): number {
  const gas = Number(BigInt(receipt.gasUsed))
  rows.push([what, gas])
  return gas
}

async function submitted(m: BoundContract, c: Checkpoint, signers: Validator[]): Promise<Json> {
  const digest = checkpointDigest(c, { childChainId: CHILD_CHAIN_ID, baseChainId: BASE_CHAIN_ID, manager: m.address })
  return m.write(base.deployer, 'submitCheckpoint', [encodeCheckpoint(c), signCheckpoint(signers, digest)])
}

/** The fewest signers (of equal power) holding more than 2/3. */
function supermajority(n: number): number {
  return Math.floor((2 * n) / 3) + 1
}

beforeAll(async () => {
  base = await startBaseChain()
})

afterAll(async () => {
  await base?.stop()
  console.log(
    `checkpoint contracts, gas per transaction (anvil, Prague)\n${rows.map(([w, g]) => `  ${w.padEnd(58)} ${g.toLocaleString('en-US').padStart(10)}`).join('\n')}`,
  )
})

describe('gas', () => {
  for (const n of SET_SIZES) {
    it(`submitCheckpoint with ${n} validators`, async () => {
      const set = validators(n, `gas-${n}`)
      const { address, receipt } = await base.chain.deploy(base.deployer, 'CheckpointManager', [
        CHILD_CHAIN_ID,
        MAX_BLOCKS,
        set.map((v) => v.address),
        set.map(() => 10n ** 24n),
      ])
      record(`deploy CheckpointManager, ${n} validators`, receipt)
      const m = base.chain.contract('CheckpointManager', address)
      const root = (i: number) => keccak256(`0x${i.toString(16).padStart(2, '0')}`)
      const proposer = set[0].address
      record(`first checkpoint, ${n} of ${n} sign`, await submitted(m, checkpoint(proposer, 1n, 1024n, root(1)), set))
      const all = record(
        `checkpoint, ${n} of ${n} sign`,
        await submitted(m, checkpoint(proposer, 1025n, 2048n, root(2)), set),
      )
      const k = supermajority(n)
      record(
        `checkpoint, ${k} of ${n} sign (> 2/3)`,
        await submitted(m, checkpoint(proposer, 2049n, 3072n, root(3)), set.slice(0, k)),
      )
      const next = validators(n, `gas-${n}-next`)
      const change: Checkpoint = {
        ...checkpoint(proposer, 3073n, 4096n, root(4)),
        newSigners: next.map((v) => v.address),
        newPowers: next.map(() => 2n * 10n ** 24n),
      }
      const setChange = record(`checkpoint with a new set of ${n}, ${n} of ${n} sign`, await submitted(m, change, set))
      expect(await m.read('totalPower')).toBe(BigInt(n) * 2n * 10n ** 24n)
      record(
        `checkpoint after the change, ${n} of ${n} sign`,
        await submitted(m, checkpoint(proposer, 4097n, 5120n, root(5)), next),
      )
      if (n === 4) expect(all).toBeLessThan(BUDGET.checkpoint4)
      if (n === 150) {
        expect(all).toBeLessThan(BUDGET.checkpoint150)
        expect(setChange).toBeLessThan(BUDGET.setChange150)
      }
    })
  }

  it('exit through a 1,024-block checkpoint', async () => {
    const set = validators(4, 'gas-exit')
    const { address } = await base.chain.deploy(base.deployer, 'CheckpointManager', [
      CHILD_CHAIN_ID,
      MAX_BLOCKS,
      set.map((v) => v.address),
      set.map(() => 1n),
    ])
    const m = base.chain.contract('CheckpointManager', address)
    const t = await base.chain.deploy(base.deployer, 'BaseToken', ['Base', 'BSE', 10n ** 30n])
    const token = base.chain.contract('BaseToken', t.address)
    const v = await base.chain.deploy(base.deployer, 'ExitVault', [m.address])
    const vault = base.chain.contract('ExitVault', v.address)
    await vault.write(base.deployer, 'mapToken', [CHILD_TOKEN, token.address])
    await token.write(base.deployer, 'transfer', [vault.address, 10n ** 29n])

    // blocks 1..1024: block 700 has one receipt, block 701 has 300
    const small = await block(700n, 1)
    const big = await block(701n, 300)
    const leaves = Array.from({ length: 1024 }, (_, i) => keccak256(`0x${(i + 1).toString(16).padStart(4, '0')}`))
    leaves[699] = small.hash
    leaves[700] = big.hash
    await submitted(m, checkpoint(set[0].address, 1n, 1024n, merkleRoot(leaves)), set)

    const one = await exitParts(small, 10_000n, 1n, leaves, 0)
    const g1 = record(
      'exit: 1,024-block checkpoint (10 siblings), 1-receipt block',
      await vault.write(base.deployer, 'exit', [encodeExitPayload(one)]),
    )
    for (const i of [1, 200]) {
      const p = await exitParts(big, 10_000n, 1n, leaves, i)
      const nodes = (await createMerkleProof(big.trie, RLP.encode(i))).length
      const gas = record(
        `exit: 1,024-block checkpoint, 300-receipt block (${nodes} trie nodes, log ${burnLogIndex(i)})`,
        await vault.write(base.deployer, 'exit', [encodeExitPayload(p)]),
      )
      expect(gas).toBeLessThan(BUDGET.exit)
    }
    expect(g1).toBeLessThan(BUDGET.exit)
  })
})
