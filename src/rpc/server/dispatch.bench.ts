/**
 * The dispatcher's hot path in process, no socket: a JSON-RPC body in, the answer's text out, for
 * the cheapest reads (eth_chainId, eth_blockNumber: envelope, Map lookup, handler) and for two with
 * params to decode (eth_getBalance of a dev account: Address + optional BlockTag and the flat
 * account cache; eth_getBlockByNumber of the head without transactions). What typed method
 * definitions or the backend interface add per request shows here before any HTTP noise.
 *
 * Run: npx vitest bench src/rpc/server/dispatch.bench.ts
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bench, describe } from 'vitest'
import { devAccounts } from '../../config/accounts.js'
import { defaultConfig } from '../../config/defaults.js'
import { openTestChain } from '../../../test/helpers/chain.js'
import { ChainEvents } from '../../filters/index.js'
import { NodeBackend } from '../nodeBackend.js'
import { NAMESPACES } from '../index.js'
import { RpcDispatcher } from './dispatch.js'

const dir = mkdtempSync(join(tmpdir(), 'ibex-dispatch-bench-'))
const [alice, validator] = devAccounts(2) as { address: string; privateKey: string }[]
const chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
const config = { ...defaultConfig('dev'), datadir: dir }
const backend = new NodeBackend({
  config,
  db: chain.db,
  store: chain.store,
  common: chain.common,
  // no transaction is sent and no block sealed here
  pool: undefined as never,
  engine: undefined as never,
  sealer: undefined,
  log: undefined as never,
  events: new ChainEvents(chain.store),
})
const dispatcher = new RpcDispatcher({
  namespaces: NAMESPACES,
  enabledApis: ['eth', 'net', 'web3'],
  ctx: backend,
  maxBatchItems: 0,
})

const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
const CHAIN_ID = body('eth_chainId', [])
const BLOCK_NUMBER = body('eth_blockNumber', [])
const BALANCE = body('eth_getBalance', [alice?.address, 'latest'])
const BLOCK = body('eth_getBlockByNumber', ['latest', false])

// the first answers fill the account cache and the formatted-block cache, as on a running node
for (const b of [CHAIN_ID, BLOCK_NUMBER, BALANCE, BLOCK]) {
  const answer = await dispatcher.handleBody(b)
  if (answer === undefined || answer.includes('"error"')) throw new Error(`bench setup: ${b} answered ${answer}`)
}

describe('dispatch, in process', () => {
  bench('eth_chainId', async () => {
    await dispatcher.handleBody(CHAIN_ID)
  })
  bench('eth_blockNumber', async () => {
    await dispatcher.handleBody(BLOCK_NUMBER)
  })
  bench('eth_getBalance(dev account, latest)', async () => {
    await dispatcher.handleBody(BALANCE)
  })
  bench('eth_getBlockByNumber(latest, false)', async () => {
    await dispatcher.handleBody(BLOCK)
  })
})
