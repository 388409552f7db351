import { readFileSync } from 'node:fs'
import { createChainCommon } from '/work/main/dist/src/chain/common.js'
import { openDatabase } from '/work/main/dist/src/chain/db.js'
import { ChainStore } from '/work/main/dist/src/chain/store.js'
import { call } from '/work/main/dist/src/exec/call.js'
import { stateAt } from '/work/main/dist/src/state/index.js'
import { Address } from '@ethereumjs/util'
const dir = process.argv[2]
const genesis = JSON.parse(readFileSync(`${dir}/genesis.json`, 'utf8'))
const common = createChainCommon(genesis)
const db = await openDatabase(`${dir}/data/chaindata`)
const store = new ChainStore(db, common)
common.setHardforkBy({ blockNumber: store.head.header.number, timestamp: store.head.header.timestamp })
const token = Buffer.from('5fbdb2315678afecb367f032d93f642f64180aa3', 'hex')
const holder = '0x' + '00'.repeat(12)
const N = Number(process.argv[3] ?? 2000)
const what = process.argv[4] ?? 'call'
const env = { db, store, common, block: store.head }
let t = performance.now()
for (let i = 0; i < N; i++) {
  if (what === 'call') await call(env, { to: token, data: Buffer.from('70a08231' + '00'.repeat(12) + '11'.repeat(20), 'hex') }, { gasCap: 50_000_000n, timeoutMs: 5000 })
  else { const sm = stateAt(db, common, store.head.header.stateRoot); await sm.getAccount(new Address(token)) }
}
console.log(what, ((performance.now() - t) * 1000 / N).toFixed(1), 'us per op')
await db.close()
