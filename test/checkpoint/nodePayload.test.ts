/**
 * The node's exit payload (src/validators/checkpoint/exitPayload.ts, what validators_getExitPayload
 * answers) against the real ExitVault on an anvil base chain: the child chain is an in-process dev
 * chain with burns (test/helpers/burnChain.ts: a 1559 and a legacy call, each emitting a non-burn log
 * then Transfer(burner, 0, amount)); its blocks 1..5 are checkpointed in a CheckpointManager with
 * real signatures; the burn contract is mapped to a BaseToken the vault holds. The vault pays each
 * payload once, to the burner, and refuses a payload built against a forged checkpoint root.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Address, bytesToHex, createContractAddress, hexToBytes } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { BoundContract } from '../../scripts/dao/client.js'
import { buildExitPayload, checkpointRoot, proveBlock, rangeHashes } from '../../src/validators/checkpoint/index.js'
import { BURN_AMOUNT, BURNER, type BurnChain, openBurnChain } from '../helpers/burnChain.js'
import {
  BASE_CHAIN_ID,
  type BaseChain,
  checkpoint,
  checkpointDigest,
  encodeCheckpoint,
  signCheckpoint,
  startBaseChain,
  validators,
} from './helpers.js'

const SUPPLY = 10n ** 24n
const VAULT_FUNDS = 10n ** 21n
const MAX_BLOCKS = 1024n
const SIGNERS = validators(3, 'node-payload')

let dir: string
let child: BurnChain
let base: BaseChain
let manager: BoundContract
let vault: BoundContract
let baseToken: BoundContract

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-node-payload-'))
  ;[child, base] = await Promise.all([openBurnChain(dir), startBaseChain()])
  const childChainId = child.common.chainId()
  const m = await base.chain.deploy(base.deployer, 'CheckpointManager', [
    childChainId,
    MAX_BLOCKS,
    SIGNERS.map((v) => v.address),
    SIGNERS.map(() => 1n),
  ])
  manager = base.chain.contract('CheckpointManager', m.address)
  const c = checkpoint(
    SIGNERS[0].address,
    child.checkpoint.start,
    child.checkpoint.end,
    bytesToHex(child.checkpoint.root),
  )
  const digest = checkpointDigest(c, { childChainId, baseChainId: BASE_CHAIN_ID, manager: manager.address })
  const submitted = await manager.write(base.deployer, 'submitCheckpoint', [
    encodeCheckpoint(c),
    signCheckpoint(SIGNERS, digest),
  ])
  expect(manager.events(submitted)[0].args.headerBlockId).toBe(child.checkpoint.id)

  const b = await base.chain.deploy(base.deployer, 'BaseToken', ['Base', 'BSE', SUPPLY])
  baseToken = base.chain.contract('BaseToken', b.address)
  const v = await base.chain.deploy(base.deployer, 'ExitVault', [manager.address])
  vault = base.chain.contract('ExitVault', v.address)
  // the burn contract is the burner's first deployment on the child chain
  const burnContract = createContractAddress(new Address(hexToBytes(BURNER.address as `0x${string}`)), 0n).toString()
  await vault.write(base.deployer, 'mapToken', [burnContract, baseToken.address])
  await baseToken.write(base.deployer, 'transfer', [vault.address, VAULT_FUNDS])
}, 120_000)

afterAll(async () => {
  await base?.stop()
  await child?.db.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

describe("ExitVault pays the node's exit payloads", () => {
  it.each([
    ['a legacy receipt (block log 3)', 'legacyCall', 3n],
    ['a typed receipt (block log 1)', 'typedCall', 1n],
  ] as const)('%s: paid once to the burner', async (_what, which, logIndex) => {
    const out = await buildExitPayload(child.reader, child.source, { txHash: child.tx[which], logIndex })
    const payload = bytesToHex(out.payload)
    const before = (await baseToken.read('balanceOf', [BURNER.address])) as bigint
    const receipt = await vault.write(base.deployer, 'exit', [payload])
    const [event] = vault.events(receipt)
    expect(event?.name).toBe('Exited')
    expect(event?.args.owner.toLowerCase()).toBe(BURNER.address.toLowerCase())
    expect(event?.args.amount).toBe(BURN_AMOUNT)
    expect(await baseToken.read('balanceOf', [BURNER.address])).toBe(before + BURN_AMOUNT)
    const again = await vault.revertOf(base.deployer, 'exit', [payload])
    expect(again?.name).toBe('ExitAlreadyProcessed')
  })

  it('refuses a payload whose block proof is against another root', async () => {
    // the node refuses to build one (CheckpointRootMismatchError); forge it: a proof for a range one block longer
    const forged = { ...child.checkpoint, end: child.checkpoint.end + 1n }
    forged.root = checkpointRoot(rangeHashes(child.reader, forged.start, forged.end))
    const proved = proveBlock(child.reader, forged, 2n)
    const out = await buildExitPayload(child.reader, child.source, { txHash: child.tx.legacyCall, logIndex: 3n })
    expect(bytesToHex(proved.proof)).not.toBe(bytesToHex(out.proof))
    const payload = bytesToHex(out.payload).replace(bytesToHex(out.proof).slice(2), bytesToHex(proved.proof).slice(2))
    const refusal = await vault.revertOf(base.deployer, 'exit', [payload])
    expect(refusal?.name).toBe('BadBlockProof')
  })
})
