/**
 * NodeBackend over a real dev chain (database, store, genesis state; EVM in process): the state
 * reads the namespaces make through it, on both of its account paths, and the chain reads.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../config/accounts.js'
import { DEV_ACCOUNT_BALANCE_WEI, defaultConfig } from '../config/defaults.js'
import { openTestChain } from '../../test/helpers/chain.js'
import { ChainEvents } from '../filters/index.js'
import { toQuantity } from '../util/hex.js'
import { ethNamespace } from './namespaces/eth/index.js'
import { callMethod } from './namespaces/testing.js'
import { NodeBackend } from './nodeBackend.js'

const [alice, validator] = devAccounts(2) as { address: string; privateKey: string }[]
const NOBODY = '0x00000000000000000000000000000000000000ee'
let dir: string
let chain: Awaited<ReturnType<typeof openTestChain>>
let backend: NodeBackend

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-nodebackend-'))
  chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
  backend = new NodeBackend({
    config: { ...defaultConfig('dev'), datadir: dir },
    db: chain.db,
    store: chain.store,
    common: chain.common,
    // these tests send no transaction and seal no block
    pool: undefined as never,
    engine: undefined as never,
    sealer: undefined,
    log: undefined as never,
    events: new ChainEvents(chain.store),
  })
})

afterAll(async () => {
  backend.close()
  await chain.db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('NodeBackend', () => {
  it('reads a funded account and an absent one at the head', async () => {
    const address = (alice?.address as string).toLowerCase()
    expect(await backend.account(backend.head(), address)).toEqual({ nonce: 0n, balance: DEV_ACCOUNT_BALANCE_WEI })
    expect(await backend.account(backend.head(), NOBODY)).toEqual({ nonce: 0n, balance: 0n })
    expect(await callMethod(ethNamespace, backend, 'eth_getBalance', [alice?.address, 'latest'])).toEqual({
      result: toQuantity(DEV_ACCOUNT_BALANCE_WEI),
    })
  })

  it('reads code, storage and a proof through one state reader', async () => {
    const state = backend.state(backend.head())
    expect(await state.code(NOBODY)).toEqual(new Uint8Array(0))
    expect((await state.storage(NOBODY, new Uint8Array(32))).length).toBe(0)
    const proof = await state.proof((alice?.address as string).toLowerCase(), [])
    expect(proof.balance).toBe(toQuantity(DEV_ACCOUNT_BALANCE_WEI))
    expect(proof.accountProof.length).toBeGreaterThan(0)
  })

  it('answers the chain it stores', async () => {
    const genesis = backend.blockByNumber(0n)
    expect(genesis?.hash).toEqual(backend.genesisHash)
    expect(backend.head().header.number).toBe(0n)
    expect(backend.isCanonical(genesis as NonNullable<typeof genesis>)).toBe(true)
    expect(await callMethod(ethNamespace, backend, 'eth_chainId')).toEqual({
      result: toQuantity(chain.common.chainId()),
    })
  })
})
