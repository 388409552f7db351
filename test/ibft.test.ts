/**
 * IBFT sealing as an outsider checks it (DESIGN "Chain rules"), with the independent decoder of
 * test/helpers/header.ts: every block's extraData is 32-byte vanity ‖ RLP([validators,
 * proposerSeal, committedSeals, parentCommittedSeals, round]) naming the one dev validator the node
 * printed; the block hash is keccak256 of the Prague header RLP with the seals and round blanked;
 * the proposer seal and the committed seals recover to the validator.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS } from './helpers/dev.js'
import {
  bytesToHex,
  committedSealDigest,
  decodeIbftExtra,
  encodeHeader,
  hexToBytes,
  keccak256,
  proposerSealDigest,
  type RpcBlock,
  recoverSigner,
  sealFreeHash,
} from './helpers/header.js'
import { cleanupNodes, type IbexNode, rpc, startNode, waitForReceipt } from './helpers/node.js'
import { sendTx } from './helpers/tx.js'

/** Blocks produced for the checks (one transfer each, block time 0). */
const BLOCKS_TO_PRODUCE = 4
const ROUND_BYTES = 8

let node: IbexNode
let url: string
let blocks: RpcBlock[] = []

beforeAll(async () => {
  // info level so the start banner / log names the validator address
  node = await startNode({ logLevel: 'info' })
  url = node.url
  for (let i = 0; i < BLOCKS_TO_PRODUCE; i++) {
    const hash = await sendTx(url, DEV_ACCOUNTS[0].privateKey, { to: DEV_ACCOUNTS[1].address, value: BigInt(i + 1) })
    await waitForReceipt(url, hash)
  }
  const head = Number(BigInt(await rpc(url, 'eth_blockNumber')))
  blocks = []
  for (let n = 0; n <= head; n++) blocks.push(await rpc(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]))
})

afterAll(cleanupNodes)

describe('IBFT extraData and seals', () => {
  it('the node names its validator, and the chain has sealed blocks', () => {
    expect(node.validatorAddress(), `no "validator 0x…" in the output:\n${node.stdout()}\n${node.stderr()}`).toMatch(
      /^0x[0-9a-f]{40}$/,
    )
    expect(blocks.length).toBeGreaterThan(BLOCKS_TO_PRODUCE)
  })

  it('the validator key file in the datadir (if any) belongs to that validator', () => {
    const keyFile = join(node.datadir, 'validator.key')
    if (!existsSync(keyFile)) return
    const hex = readFileSync(keyFile, 'utf8').trim()
    const key = (hex.startsWith('0x') ? hex : `0x${hex}`) as `0x${string}`
    expect(privateKeyToAccount(key).address.toLowerCase()).toBe(node.validatorAddress())
  })

  it('latest block: vanity ‖ RLP([validators, proposerSeal, committedSeals, parentCommittedSeals, round])', () => {
    const latest = blocks[blocks.length - 1]
    const extra = decodeIbftExtra(latest.extraData)
    expect(extra.vanity).toHaveLength(32)
    expect(extra.validators.map(bytesToHex)).toEqual([node.validatorAddress()])
    expect(extra.proposerSeal).toHaveLength(65)
    expect(extra.committedSeals.length).toBeGreaterThanOrEqual(1)
    for (const s of extra.committedSeals) expect(s).toHaveLength(65)
    expect(extra.roundBytes).toHaveLength(ROUND_BYTES)
  })

  it('every block hash = keccak256(RLP(header with proposerSeal, round = 0x80 and committedSeals = 0xc0))', () => {
    for (const b of blocks.slice(1)) {
      expect(sealFreeHash(b), `block ${b.number}`).toBe(b.hash)
      // the served extraData carries the seals, so hashing it as-is must not give the hash
      expect(bytesToHex(keccak256(encodeHeader(b))), `block ${b.number} hash covers the seals`).not.toBe(b.hash)
    }
  })

  it('every proposer seal recovers (over keccak256(hash)) to the validator', () => {
    for (const b of blocks.slice(1)) {
      const extra = decodeIbftExtra(b.extraData)
      expect(recoverSigner(proposerSealDigest(hexToBytes(b.hash)), extra.proposerSeal), `block ${b.number}`).toBe(
        node.validatorAddress(),
      )
    }
  })

  it('committed seals recover over keccak256(keccak256(hash ‖ uint64BE(round)) ‖ 0x02) to distinct validators (quorum)', () => {
    for (const b of blocks.slice(1)) {
      const extra = decodeIbftExtra(b.extraData)
      const validators = extra.validators.map(bytesToHex)
      const quorum = Math.floor((2 * validators.length) / 3) + 1
      const digest = committedSealDigest(hexToBytes(b.hash), extra.round)
      const signers = extra.committedSeals.map((s) => recoverSigner(digest, s))
      for (const s of signers) expect(validators, `block ${b.number}`).toContain(s)
      expect(new Set(signers).size, `block ${b.number}`).toBe(signers.length)
      expect(signers.length, `block ${b.number} committed seals`).toBeGreaterThanOrEqual(quorum)
    }
  })

  it("parentCommittedSeals of block n are block n-1's committed seals", () => {
    for (let i = 2; i < blocks.length; i++) {
      const parent = decodeIbftExtra(blocks[i - 1].extraData)
      const extra = decodeIbftExtra(blocks[i].extraData)
      const digest = committedSealDigest(hexToBytes(blocks[i - 1].hash), parent.round)
      expect(extra.parentCommittedSeals.length, `block ${i}`).toBeGreaterThanOrEqual(1)
      for (const s of extra.parentCommittedSeals) {
        expect(parent.validators.map(bytesToHex), `block ${i}`).toContain(recoverSigner(digest, s))
      }
    }
  })

  it('genesis names the validator set; headers carry the IBFT constants', () => {
    const genesis = decodeIbftExtra(blocks[0].extraData)
    expect(genesis.validators.map(bytesToHex)).toEqual([node.validatorAddress()])
    for (const b of blocks) {
      expect(b.mixHash).toBe('0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365')
      expect(b.difficulty).toBe('0x1')
      expect(b.nonce).toBe('0x0000000000000000')
    }
    for (let i = 1; i < blocks.length; i++) expect(blocks[i].parentHash).toBe(blocks[i - 1].hash)
  })
})
