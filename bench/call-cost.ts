/**
 * What one view eth_call costs in process, without RPC or worker hop (ExecPool with 0 workers):
 * BenchToken.balanceOf of addresses that never repeat (no result cache helps) and of one holder
 * (the result cache answers), on a dev chain holding the token. Prints calls/s and the median per call; for a
 * profile of the EVM path run it under `node --cpu-prof`. The distinct-address row runs twice: with
 * the fast interpreter (src/evm/fast) and on ethereumjs (an empty access list keeps a message off
 * the fast layer), for a before/after from the same run.
 *
 *   npm run build && node dist/bench/call-cost.js [calls=20000]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { devAccounts } from '../src/config/accounts.js'
import { ExecPool } from '../src/exec/pool/index.js'
import { openTestChain } from '../test/helpers/chain.js'
import { validateTransaction } from '../src/txpool/validate.js'
import { compileBench } from '../test/helpers/compile.js'

const CALLS = Number(process.argv[2] ?? 20_000)
const BALANCE_OF = '70a08231'

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-callcost-'))
  const [alice, , validator] = devAccounts(3) as { address: string; privateKey: string }[]
  const chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
  try {
    const code = compileBench().BenchToken.bytecode.slice(2) + (10n ** 24n).toString(16).padStart(64, '0')
    const deploy = createTx(
      {
        type: 2,
        nonce: 0n,
        data: hexToBytes(`0x${code}`),
        gasLimit: 3_000_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: chain.common },
    ).sign(hexToBytes(alice?.privateKey as `0x${string}`))
    const { block } = await chain.builder.build(
      [await validateTransaction(deploy.serialize(), chain.admission())],
      chain.store.head.header.timestamp + 1n,
    )
    const token = chain.store.getReceipts(block.hash)?.[0]?.contractAddress as Uint8Array
    const pool = ExecPool.inProcess(chain.db, chain.store, chain.common)
    const limits = { gasCap: 50_000_000n, timeoutMs: 5000 }
    const head = chain.store.head
    const call = async (request: { to: Uint8Array; data: Uint8Array; accessList?: [] }) =>
      (await pool.call({ kind: 'call', head: head.header.number, blockHash: head.hash, request, limits })) as Uint8Array
    const holder = (alice?.address as string).slice(2).toLowerCase()
    const data = (who: string) => hexToBytes(`0x${BALANCE_OF}${who.padStart(64, '0')}`)
    const first = await call({ to: token, data: data(holder) })
    if (BigInt(`0x${Buffer.from(first).toString('hex')}`) !== 10n ** 24n)
      throw new Error('balanceOf(deployer) is not the supply')
    const measure = async (label: string, next: (i: number) => Uint8Array, ethereumjs = false) => {
      const accessList = ethereumjs ? ([] as []) : undefined
      for (let i = 0; i < 500; i++) await call({ to: token, data: next(i + 10_000_000), accessList })
      const times: number[] = []
      const t0 = performance.now()
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now()
        await call({ to: token, data: next(i), accessList })
        times.push(performance.now() - t)
      }
      const s = (performance.now() - t0) / 1000
      times.sort((a, b) => a - b)
      console.log(`| ${label} | ${Math.round(CALLS / s)} | ${(times[times.length >> 1] as number).toFixed(3)} |`)
    }
    console.log('| eth_call, in process | calls/s | median ms |')
    console.log('|---|---:|---:|')
    await measure('balanceOf, distinct addresses (ethereumjs)', (i) => data((i + 50_000_000).toString(16)), true)
    await measure('balanceOf, distinct addresses', (i) => data(i.toString(16)))
    await measure('balanceOf, one holder (result cache)', () => data(holder))
  } finally {
    await chain.db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
