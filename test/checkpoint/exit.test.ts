/**
 * ExitVault end to end: burns of a ChildToken on a real ibex dev node, two checkpoints of its blocks
 * on an anvil base chain signed by real keys, exit payloads built here from the child chain's
 * JSON-RPC answers (receipts trie rebuilt with @ethereumjs/mpt). The burn is paid once; a second
 * exit, a forged receipt, wrong proofs, a block outside the checkpoint, an unmapped token, a
 * transfer that is not a burn and a failed transaction are refused, each with its error.
 */
import { RLP } from '@ethereumjs/rlp'
import { getAddress, getBytes, hexlify } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BoundContract, Chain, type Json, type Signer } from '../../scripts/dao/client.js'
import { devWallet } from '../../scripts/dao/plan.js'
import type { RpcBlock } from '../helpers/header.js'
import { cleanupNodes, type IbexNode, startNode } from '../helpers/node.js'
import { buildExit, type CheckpointRange, encodeExitPayload, exitId } from './exitPayload.js'
import {
  BASE_CHAIN_ID,
  type BaseChain,
  checkpoint,
  checkpointDigest,
  encodeCheckpoint,
  merkleRoot,
  signCheckpoint,
  startBaseChain,
  validators,
} from './helpers.js'

const UNIT = 10n ** 18n
const SUPPLY = 1_000_000n * UNIT
const VAULT_FUNDS = 500_000n * UNIT
const MAX_BLOCKS = 1024n
/** Gas for a transaction sent without an estimate (the failing withdraw). */
const FIXED_GAS = 200_000n
const VALIDATORS = validators(4, 'exit')

let base: BaseChain
let node: IbexNode
let child: Chain
let holder: Signer
let user: Signer
let manager: BoundContract
let vault: BoundContract
let baseToken: BoundContract
let childToken: BoundContract
let otherToken: BoundContract

/** Transactions on the child chain, by what they are. */
const tx: Record<'transfer' | 'burnA' | 'burnB' | 'burnOther' | 'burnZero' | 'approve' | 'failed' | 'burnLate', Json> =
  {} as never
let first: CheckpointRange
let second: CheckpointRange

async function rangeOf(headerBlockId: bigint, start: bigint, end: bigint): Promise<CheckpointRange> {
  const leaves: string[] = []
  for (let n = start; n <= end; n++) {
    const block: RpcBlock = await child.rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
    leaves.push(block.hash)
  }
  return { headerBlockId, start, leaves }
}

async function commit(range: CheckpointRange): Promise<void> {
  const end = range.start + BigInt(range.leaves.length) - 1n
  const c = checkpoint(VALIDATORS[0].address, range.start, end, merkleRoot(range.leaves))
  const digest = checkpointDigest(c, {
    childChainId: await child.chainId(),
    baseChainId: BASE_CHAIN_ID,
    manager: manager.address,
  })
  const receipt = await manager.write(base.deployer, 'submitCheckpoint', [
    encodeCheckpoint(c),
    signCheckpoint(VALIDATORS, digest),
  ])
  expect(manager.events(receipt)[0].args.headerBlockId).toBe(range.headerBlockId)
}

async function refusal(payload: string): Promise<{ name: string; args: string[] }> {
  const r = await vault.revertOf(base.deployer, 'exit', [payload])
  if (r === undefined) throw new Error('exit was accepted')
  return r
}

function blockOf(receipt: Json): bigint {
  return BigInt(receipt.blockNumber)
}

beforeAll(async () => {
  ;[base, node] = await Promise.all([startBaseChain(), startNode()])
  child = new Chain(node.url)
  holder = child.signer(devWallet(0).privateKey)
  user = child.signer(devWallet(1).privateKey)

  // child chain: the mapped token, an unmapped one, a transfer, burns, a failed burn
  const deployed = await child.deploy(holder, 'ChildToken', ['Child', 'CHD', holder.address, SUPPLY])
  childToken = child.contract('ChildToken', deployed.address)
  const other = await child.deploy(holder, 'ChildToken', ['Other', 'OTH', holder.address, SUPPLY])
  otherToken = child.contract('ChildToken', other.address)
  tx.transfer = await childToken.write(holder, 'transfer', [user.address, 1_000n * UNIT])
  tx.burnA = await childToken.write(user, 'withdraw', [100n * UNIT])
  tx.burnB = await childToken.write(user, 'withdraw', [200n * UNIT])
  tx.burnOther = await otherToken.write(holder, 'withdraw', [5n * UNIT])
  tx.burnZero = await childToken.write(user, 'withdraw', [0n])
  tx.approve = await childToken.write(user, 'approve', [holder.address, 1n])
  const failedHash = await childToken.send(user, 'withdraw', [SUPPLY], { gas: FIXED_GAS })
  tx.failed = await child.receipt(failedHash)
  expect(tx.failed.status).toBe('0x0')

  // base chain: the set the checkpoints are signed by, the vault and its funds
  const m = await base.chain.deploy(base.deployer, 'CheckpointManager', [
    await child.chainId(),
    MAX_BLOCKS,
    VALIDATORS.map((v) => v.address),
    VALIDATORS.map(() => 1n),
  ])
  manager = base.chain.contract('CheckpointManager', m.address)
  const b = await base.chain.deploy(base.deployer, 'BaseToken', ['Base', 'BSE', SUPPLY])
  baseToken = base.chain.contract('BaseToken', b.address)
  const v = await base.chain.deploy(base.deployer, 'ExitVault', [manager.address])
  vault = base.chain.contract('ExitVault', v.address)
  const mapped = await vault.write(base.deployer, 'mapToken', [childToken.address, baseToken.address])
  const [event] = vault.events(mapped)
  expect(event.name).toBe('TokenMapped')
  expect([event.args.childToken, event.args.baseToken]).toEqual([
    getAddress(childToken.address),
    getAddress(baseToken.address),
  ])
  await baseToken.write(base.deployer, 'transfer', [vault.address, VAULT_FUNDS])

  // checkpoints: [1, transfer's block] and [next, the failed burn's block]; a burn after them
  const head = blockOf(tx.failed)
  first = await rangeOf(10_000n, 1n, blockOf(tx.transfer))
  second = await rangeOf(20_000n, blockOf(tx.transfer) + 1n, head)
  await commit(first)
  await commit(second)
  tx.burnLate = await childToken.write(user, 'withdraw', [7n * UNIT])
}, 120_000)

afterAll(async () => {
  await base?.stop()
  await cleanupNodes()
})

describe('ExitVault: a burn on ibex exited on the base chain', () => {
  it('the child chain burned: Transfer(user, 0, amount) from the mapped token', () => {
    const [log] = tx.burnA.logs
    expect(log.address.toLowerCase()).toBe(childToken.address.toLowerCase())
    expect(BigInt(log.topics[2])).toBe(0n)
    expect(BigInt(log.data)).toBe(100n * UNIT)
  })

  it('pays the burner once, with the Exited event and the exit id', async () => {
    const parts = await buildExit(child, second, tx.burnA.transactionHash, 0n)
    const before = (await baseToken.read('balanceOf', [user.address])) as bigint
    const receipt = await vault.write(base.deployer, 'exit', [encodeExitPayload(parts, 'bytes')])
    const events = vault.events(receipt)
    expect(events).toHaveLength(1)
    expect(events[0].name).toBe('Exited')
    expect(events[0].args.exitId).toBe(exitId(parts))
    expect(events[0].args.owner).toBe(user.address)
    expect(events[0].args.baseToken).toBe(getAddress(baseToken.address))
    expect(events[0].args.amount).toBe(100n * UNIT)
    expect(await baseToken.read('balanceOf', [user.address])).toBe(before + 100n * UNIT)
    expect(await baseToken.read('balanceOf', [vault.address])).toBe(VAULT_FUNDS - 100n * UNIT)
    expect(await vault.read('processedExits', [exitId(parts)])).toBe(true)

    // again, in any layout: refused
    const again = { name: 'ExitAlreadyProcessed', args: [exitId(parts)] }
    expect(await refusal(encodeExitPayload(parts, 'bytes'))).toEqual(again)
    expect(await refusal(encodeExitPayload(parts, 'polygon'))).toEqual(again)
    expect(await refusal(encodeExitPayload(parts, 'inPlace'))).toEqual(again)
  })

  it('refuses a forged receipt', async () => {
    const parts = await buildExit(child, second, tx.burnB.transactionHash, 0n)
    // the amount raised in the receipt, the proof left alone: the proven receipt differs
    const receipt = Uint8Array.from(parts.receipt)
    const amount = getBytes(`0x${(200n * UNIT).toString(16).padStart(64, '0')}`)
    const at = Buffer.from(receipt).indexOf(Buffer.from(amount))
    expect(at).toBeGreaterThan(0)
    receipt[at + 31] ^= 1
    expect(await refusal(encodeExitPayload({ ...parts, receipt }))).toEqual({ name: 'ReceiptMismatch', args: [] })
    // and put in the proof's leaf too: the leaf no longer hashes to its parent's reference
    const leaf = parts.proof[parts.proof.length - 1]
    const forgedLeaf = RLP.encode([(RLP.decode(leaf) as Uint8Array[])[0], receipt])
    const proof = [...parts.proof.slice(0, -1), forgedLeaf]
    expect(await refusal(encodeExitPayload({ ...parts, receipt, proof }))).toEqual({
      name: 'MptBadNodeHash',
      args: [String(parts.proof.length - 1)],
    })
  })

  it('refuses wrong receipt proofs', async () => {
    const parts = await buildExit(child, second, tx.burnB.transactionHash, 0n)
    expect(parts.proof.length).toBeGreaterThan(0)
    if (parts.proof.length > 1) {
      expect(await refusal(encodeExitPayload({ ...parts, proof: parts.proof.slice(0, -1) }))).toEqual({
        name: 'MptProofTooShort',
        args: [],
      })
    }
    expect(await refusal(encodeExitPayload({ ...parts, proof: [...parts.proof, parts.proof[0]] }))).toEqual({
      name: 'MptProofTooLong',
      args: [],
    })
    expect(await refusal(encodeExitPayload({ ...parts, proof: [] }))).toEqual({ name: 'MptEmptyProof', args: [] })
    const otherBlock = await buildExit(child, second, tx.burnA.transactionHash, 0n)
    if (hexlify(otherBlock.proof[0]) !== hexlify(parts.proof[0])) {
      expect(await refusal(encodeExitPayload({ ...parts, proof: otherBlock.proof }))).toEqual({
        name: 'MptBadNodeHash',
        args: ['0'],
      })
    }
    // a key the trie does not hold
    expect(await refusal(encodeExitPayload({ ...parts, receiptKey: RLP.encode(77) }))).toEqual({
      name: 'MptKeyNotFound',
      args: [],
    })
  })

  it('refuses a wrong block proof, a forged header and a wrong block number', async () => {
    const parts = await buildExit(child, second, tx.burnB.transactionHash, 0n)
    if (parts.blockProof.length > 0) {
      const blockProof = Uint8Array.from(parts.blockProof)
      blockProof[0] ^= 1
      expect((await refusal(encodeExitPayload({ ...parts, blockProof }))).name).toBe('BadBlockProof')
    }
    const longer = Uint8Array.from([...parts.blockProof, ...new Uint8Array(32)])
    expect(await refusal(encodeExitPayload({ ...parts, blockProof: longer }))).toEqual({
      name: 'BadBlockProofLength',
      args: [String(parts.blockProof.length), String(longer.length)],
    })
    // a header that is not the block's (its extraData with the seals in, as served over RPC)
    const fields = RLP.decode(parts.headerRlp) as Uint8Array[]
    const forged = RLP.encode([...fields.slice(0, 12), Uint8Array.of(1, 2, 3), ...fields.slice(13)])
    expect((await refusal(encodeExitPayload({ ...parts, headerRlp: forged }))).name).toBe('BadBlockProof')
    // the number claimed is not the header's
    const next = parts.blockNumber + 1n
    expect(await refusal(encodeExitPayload({ ...parts, blockNumber: next }))).toEqual({
      name: 'HeaderNumberMismatch',
      args: [String(parts.blockNumber), String(next)],
    })
  })

  it('refuses a block outside the checkpoint and an unknown checkpoint', async () => {
    const parts = await buildExit(child, second, tx.burnB.transactionHash, 0n)
    const firstEnd = first.start + BigInt(first.leaves.length) - 1n
    expect(await refusal(encodeExitPayload({ ...parts, headerBlockId: first.headerBlockId }))).toEqual({
      name: 'BlockNotInCheckpoint',
      args: [String(parts.blockNumber), String(first.start), String(firstEnd)],
    })
    expect(await refusal(encodeExitPayload({ ...parts, headerBlockId: 30_000n }))).toEqual({
      name: 'UnknownCheckpoint',
      args: ['30000'],
    })
    // a burn after the last checkpoint (its proof made against a tree that runs on to its block)
    const lateBlock = blockOf(tx.burnLate)
    const secondEnd = second.start + BigInt(second.leaves.length) - 1n
    expect(lateBlock).toBeGreaterThan(secondEnd)
    const lateParts = await buildExit(
      child,
      { ...second, leaves: [...second.leaves, ...(await rangeOf(0n, secondEnd + 1n, lateBlock)).leaves] },
      tx.burnLate.transactionHash,
      0n,
    )
    expect(await refusal(encodeExitPayload({ ...lateParts, headerBlockId: second.headerBlockId }))).toEqual({
      name: 'BlockNotInCheckpoint',
      args: [String(lateBlock), String(second.start), String(secondEnd)],
    })
  })

  it('refuses an unmapped token, a transfer that is not a burn, a failed transaction, a missing log', async () => {
    const unmapped = await buildExit(child, second, tx.burnOther.transactionHash, 0n)
    expect(await refusal(encodeExitPayload(unmapped))).toEqual({
      name: 'TokenNotMapped',
      args: [getAddress(otherToken.address)],
    })
    const transfer = await buildExit(child, first, tx.transfer.transactionHash, 0n)
    expect(await refusal(encodeExitPayload(transfer))).toEqual({ name: 'NotABurn', args: [user.address] })
    const failed = await buildExit(child, second, tx.failed.transactionHash, 0n)
    expect(await refusal(encodeExitPayload(failed))).toEqual({ name: 'ReceiptFailed', args: [] })
    const parts = await buildExit(child, second, tx.burnB.transactionHash, 1n)
    expect(await refusal(encodeExitPayload(parts))).toEqual({ name: 'LogIndexOutOfRange', args: ['1', '1'] })
  })

  it('refuses a burn of nothing, a log that is not a Transfer, and malformed payloads', async () => {
    const zero = await buildExit(child, second, tx.burnZero.transactionHash, 0n)
    expect(await refusal(encodeExitPayload(zero))).toEqual({ name: 'ZeroAmount', args: [] })
    const approval = await buildExit(child, second, tx.approve.transactionHash, 0n)
    expect(await refusal(encodeExitPayload(approval))).toEqual({ name: 'NotATransfer', args: [] })
    const parts = await buildExit(child, second, tx.burnB.transactionHash, 0n)
    const items = RLP.decode(getBytes(encodeExitPayload(parts))) as Uint8Array[]
    expect(await refusal(hexlify(RLP.encode(items.slice(0, 7))))).toEqual({ name: 'BadPayload', args: [] })
    expect(await refusal(hexlify(RLP.encode([...items, new Uint8Array()])))).toEqual({ name: 'BadPayload', args: [] })
    expect(await refusal(hexlify(RLP.encode(items).subarray(0, 100)))).toEqual({ name: 'RlpTruncated', args: [] })
    expect(await refusal(hexlify(RLP.encode(items[1])))).toEqual({ name: 'RlpExpectedList', args: [] })
    // the receipt's type byte altered: no longer the receipt the trie holds
    const typeZero = Uint8Array.from([0, ...parts.receipt.subarray(1)])
    expect(await refusal(encodeExitPayload({ ...parts, receipt: typeZero }))).toEqual({
      name: 'ReceiptMismatch',
      args: [],
    })
  })

  it('pays the second burn (payload with lists in place), and only once', async () => {
    const parts = await buildExit(child, second, tx.burnB.transactionHash, 0n)
    const before = (await baseToken.read('balanceOf', [user.address])) as bigint
    await vault.write(base.deployer, 'exit', [encodeExitPayload(parts, 'inPlace')])
    expect(await baseToken.read('balanceOf', [user.address])).toBe(before + 200n * UNIT)
    for (const style of ['bytes', 'polygon'] as const) {
      expect(await refusal(encodeExitPayload(parts, style))).toEqual({
        name: 'ExitAlreadyProcessed',
        args: [exitId(parts)],
      })
    }
  })

  it('maps a token once, by the owner only', async () => {
    expect(await vault.revertOf(base.deployer, 'mapToken', [childToken.address, vault.address])).toEqual({
      name: 'TokenAlreadyMapped',
      args: [getAddress(childToken.address), getAddress(baseToken.address)],
    })
    const stranger = base.chain.signer(devWallet(5).privateKey)
    expect(await vault.revertOf(stranger, 'mapToken', [otherToken.address, baseToken.address])).toEqual({
      name: 'OwnableUnauthorizedAccount',
      args: [stranger.address],
    })
    expect(await vault.read('tokenFor', [childToken.address])).toBe(getAddress(baseToken.address))
    expect(await vault.read('tokenFor', [otherToken.address])).toBe(`0x${'00'.repeat(20)}`)
  })
})
