/**
 * DevControl over a real in-process dev chain (store, builder, pool, sealer): an edit becomes the
 * head's effective state for every reader — a store opened before it, as a worker's is, included —
 * the next block is built on it and re-executes to its own sealed root from there (what
 * debug_trace* and an importer do), and mining seals empty blocks on the clock's timestamps.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { createTx } from '@ethereumjs/tx'
import { createAddressFromPrivateKey, createAddressFromString, randomBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { openTestChain } from '../../test/helpers/chain.js'
import { ChainStore } from '../chain/store.js'
import { devAccounts } from '../config/accounts.js'
import { defaultConfig } from '../config/defaults.js'
import type { IbexConfig } from '../config/types.js'
import { createLogger } from '../log.js'
import { flatAccount } from '../state/flatAccounts.js'
import { stateAt } from '../state/index.js'
import { trieRead } from '../state/trieLookup.js'
import { keccak256 } from '../util/keccak.js'
import { openTxPool } from '../txpool/chain.js'
import { DevClock } from './devClock.js'
import { DevControl, devCheatsEnabled, MineLimitError } from './devControl.js'
import { executeIbftBlock } from './ibftImport.js'
import { SingleValidatorSealer } from './sealer.js'

const ETHER = 10n ** 18n
const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('hex'))
const dirs: string[] = []
const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function devChain(mineMaxBlocks = 5) {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-dev-control-'))
  dirs.push(dir)
  const validator = devAccounts(1)[0] as { address: string; privateKey: string }
  const chain = await openTestChain(dir, { validator })
  const { db, store, common, builder } = chain
  const config = defaultConfig('dev')
  config.datadir = dir
  config.txpool.journal = ''
  config.exec.recoverWorkers = 0
  const pool = openTxPool(config, { store, db, common, log: createLogger('silent') })
  await pool.start()
  const clock = new DevClock()
  const sealer = new SingleValidatorSealer({
    store,
    builder,
    pool,
    blockTimeMs: 0,
    onBlock() {},
    onError(err) {
      throw err
    },
    clock,
  })
  stops.push(async () => {
    await sealer.stop()
    await pool.stop()
    await db.close()
  })
  await store.enableStateEdits()
  let cleared = 0
  const control = new DevControl({ store, common, sealer, clock, mineMaxBlocks, onStateEdit: () => cleared++ })
  return { ...chain, pool, clock, control, cleared: () => cleared }
}

/** A 1559 transfer from `key`, on the dev chain. */
function transfer(key: Uint8Array, nonce: bigint, common: Common) {
  return createTx(
    {
      type: 2,
      nonce,
      to: `0x${'42'.repeat(20)}`,
      value: 1000n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    },
    { common },
  ).sign(key)
}

describe('DevControl state edits', () => {
  it('make the head’s effective state: same hash, new root, seen by a store opened before', async () => {
    const { db, store, common, control, cleared } = await devChain()
    const head = store.head
    // a worker's store, with the head cached before the edit
    const other = new ChainStore(db, common)
    expect(hex(other.getBlockByHash(head.hash)?.header.stateRoot)).toBe(hex(head.header.stateRoot))
    const address = `0x${'ab'.repeat(20)}`
    await control.editState([{ kind: 'balance', address, balance: 5n * ETHER }])
    const edited = store.head
    expect(hex(edited.hash)).toBe(hex(head.hash))
    expect(hex(edited.header.stateRoot)).not.toBe(hex(head.header.stateRoot))
    // the header as sealed is kept: the hash still commits to it
    expect(hex(edited.headerRaw[3])).toBe(hex(head.header.stateRoot))
    expect(hex(other.getBlockByHash(head.hash)?.header.stateRoot)).toBe(hex(edited.header.stateRoot))
    const reopened = new ChainStore(db, common)
    expect(hex(reopened.head.header.stateRoot)).toBe(hex(edited.header.stateRoot))
    const account = await stateAt(db, common, edited.header.stateRoot).getAccount(createAddressFromString(address))
    expect(account?.balance).toBe(5n * ETHER)
    expect(cleared()).toBe(1)
  })

  it('the next block runs on the edit and re-executes to its sealed root only from it', async () => {
    const { store, common, pool, control } = await devChain()
    const key = randomBytes(32)
    const sender = createAddressFromPrivateKey(key).toString()
    // unfunded: the pool refuses it
    await expect(pool.submit(transfer(key, 0n, common).serialize())).rejects.toThrow(/insufficient funds/)
    await control.editState([
      { kind: 'balance', address: sender, balance: ETHER },
      { kind: 'nonce', address: sender, nonce: 4n },
    ])
    await pool.submit(transfer(key, 4n, common).serialize())
    const parent = store.head
    await control.mine(1n)
    const block = store.head
    expect(block.header.number).toBe(parent.header.number + 1n)
    expect(block.transactions).toHaveLength(1)
    expect(hex(block.headerRaw[3])).toBe(hex(block.header.stateRoot))
    // the edit and the block on it kept the flat account table at the head, the edited account in it
    expect(store.flat.stats()).toMatchObject({ valid: true, invalidations: 0 })
    const row = flatAccount(store.db, block.header.stateRoot, keccak256(createAddressFromString(sender).bytes))
    expect(hex(row ?? undefined)).toBe(
      hex(trieRead(store.db, block.header.stateRoot, createAddressFromString(sender).bytes) as Uint8Array),
    )

    const txs = block.transactionBytes.map((t) => ((t[0] as number) >= 0xc0 ? RLP.decode(t) : t))
    const wire = RLP.encode([block.headerRaw, txs, block.uncles] as never)
    const opts = { store, common, baseFeeRecipient: undefined }
    const replayed = await executeIbftBlock(opts, parent, wire, { kind: 'sealed' })
    expect(hex(replayed.hash)).toBe(hex(block.hash))
    // from the state the parent was sealed with, the sender has nothing: the replay must fail
    const sealedParent = {
      ...parent,
      header: createBlockHeaderFromBytesArray(parent.headerRaw, {
        common,
        setHardfork: true,
        skipConsensusFormatValidation: true,
      }),
    }
    await expect(executeIbftBlock(opts, sealedParent, wire, { kind: 'sealed' })).rejects.toThrow(
      /transaction 0 is invalid: sender doesn't have enough funds/,
    )
  })
})

describe('DevControl mining and time', () => {
  it('seals empty blocks, the first at a set timestamp, then `interval` seconds apart', async () => {
    const { store, control } = await devChain()
    const start = store.head.header
    await control.mine(1n, { timestamp: start.timestamp + 1000n })
    expect(store.head.header.timestamp).toBe(start.timestamp + 1000n)
    expect(store.head.transactions).toHaveLength(0)
    await control.mine(3n, { intervalSeconds: 10n })
    expect(store.head.header.number).toBe(start.number + 4n)
    const b2 = store.getBlockByNumber(start.number + 2n)?.header.timestamp as bigint
    const b3 = store.getBlockByNumber(start.number + 3n)?.header.timestamp as bigint
    expect(b3 - b2).toBeGreaterThanOrEqual(10n)
    await expect(control.mine(6n)).rejects.toThrow(MineLimitError)
    await expect(control.setNextBlockTimestamp(store.head.header.timestamp)).rejects.toThrow(
      `Timestamp error: ${store.head.header.timestamp} is lower than previous block's timestamp`,
    )
  })
})

describe('devCheatsEnabled', () => {
  const config = (network: 'dev' | 'testnet' | 'mainnet', patch: Partial<IbexConfig['dev']> = {}, genesis?: string) => {
    const c = defaultConfig(network)
    c.dev = { ...c.dev, ...patch }
    c.genesisFile = genesis
    return c
  }
  const sole = { chainId: 1337n, soleValidator: true }

  it('is on for the dev preset, off for a --genesis chain unless set', () => {
    expect(devCheatsEnabled(config('dev'), sole)).toBe(true)
    expect(devCheatsEnabled(config('dev', {}, 'g.json'), sole)).toBe(false)
    expect(devCheatsEnabled(config('mainnet', {}, 'g.json'), { chainId: 99n, soleValidator: true })).toBe(false)
    expect(devCheatsEnabled(config('mainnet', { cheats: true }, 'g.json'), { chainId: 99n, soleValidator: true })).toBe(
      true,
    )
    expect(devCheatsEnabled(config('dev', { cheats: false }), sole)).toBe(false)
  })

  it('is refused on the public chain ids and where this node does not seal alone', () => {
    expect(devCheatsEnabled(config('testnet'), { chainId: 7860n, soleValidator: false })).toBe(false)
    expect(() =>
      devCheatsEnabled(config('testnet', { cheats: true }), { chainId: 7860n, soleValidator: true }),
    ).toThrow("[dev] cheats is refused: it would let any client rewrite chain 7860's state")
    expect(() =>
      devCheatsEnabled(config('mainnet', { cheats: true }, 'g.json'), { chainId: 786n, soleValidator: true }),
    ).toThrow(/chain 786's state/)
    expect(() =>
      devCheatsEnabled(config('mainnet', { cheats: true }, 'g.json'), { chainId: 5n, soleValidator: false }),
    ).toThrow(/does not seal the chain alone/)
    expect(devCheatsEnabled(config('dev'), { chainId: 1337n, soleValidator: false })).toBe(false)
  })
})
