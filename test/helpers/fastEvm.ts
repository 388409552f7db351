/**
 * Test support for the fast interpreter: a dev chain with contracts deployed in batches, and a
 * differential runner that answers one message through the fast path and through ethereumjs
 * (runMessage with its fast layer skipped) and reports both, and whether the fast path answered or bailed.
 */
import { createTx } from '@ethereumjs/tx'
import { Address, createContractAddress, hexToBytes } from '@ethereumjs/util'
import { devAccounts } from '../../src/config/accounts.js'
import { validateTransaction } from '../../src/txpool/validate.js'
import { type CallOutcome, type CallRequest, type Env, runMessage } from '../../src/evm/runMessage.js'
import { openTestChain } from './chain.js'
import { fastCallStats } from '../../src/evm/fast/index.js'

/** Creation transactions per block when deploying many contracts. */
const DEPLOYS_PER_BLOCK = 200

/** Init code returning `runtime` (hex, no 0x): CODECOPY(0, 14, len) RETURN(0, len). */
export function initCodeFor(runtime: string): string {
  const len = (runtime.length / 2).toString(16).padStart(6, '0')
  return `62${len}600e5f3962${len}5ff3${runtime}`
}

export async function openDiffChain(dir: string) {
  const [alice, , validator] = devAccounts(3) as { address: string; privateKey: string }[]
  const chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
  const key = hexToBytes((alice as { privateKey: string }).privateKey as `0x${string}`)
  const from = new Address(hexToBytes((alice as { address: string }).address as `0x${string}`))
  let nonce = 0n

  /** The address the `i`-th next deployment will get. */
  const nextAddress = (i: number): Uint8Array => createContractAddress(from, nonce + BigInt(i)).bytes

  /** Deploys each init code (hex, no 0x; with value wei); returns the contract addresses. */
  const deploy = async (initCodes: string[], value = 0n): Promise<Uint8Array[]> => {
    const out: Uint8Array[] = []
    for (let at = 0; at < initCodes.length; at += DEPLOYS_PER_BLOCK) {
      const batch = initCodes.slice(at, at + DEPLOYS_PER_BLOCK)
      const txs = []
      for (const code of batch) {
        const tx = createTx(
          {
            type: 2,
            nonce,
            data: hexToBytes(`0x${code}`),
            value,
            gasLimit: 2_000_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          },
          { common: chain.common },
        ).sign(key)
        txs.push(await validateTransaction(tx.serialize(), chain.admission()))
        out.push(createContractAddress(from, nonce).bytes)
        nonce++
      }
      const { included } = await chain.builder.build(txs, chain.store.head.header.timestamp + 1n)
      if (included.length !== batch.length) throw new Error(`deployed ${included.length} of ${batch.length}`)
    }
    return out
  }

  const env = (): Env => ({ db: chain.db, store: chain.store, common: chain.common, block: chain.store.head })
  return { chain, from: from.bytes, deploy, nextAddress, env }
}

export interface PathResult {
  outcome?: CallOutcome
  thrown?: string
}

export interface Differential {
  fast: PathResult
  slow: PathResult
  /** The fast interpreter answered; false: it bailed out or was not asked (not a direct call). */
  answered: boolean
  /** Why it bailed out, when it was asked and did. */
  bailReason: string | undefined
}

async function run(env: Env, req: CallRequest, gas: bigint, fastLayer: boolean): Promise<PathResult> {
  try {
    const o = await runMessage(env, req, gas, { want: 'output', fastLayer })
    return { outcome: { returnValue: o.returnValue, gasUsed: o.gasUsed, error: o.error, reverted: o.reverted } }
  } catch (e) {
    return { thrown: e instanceof Error ? e.message : String(e) }
  }
}

/** Runs `req` with `gas` through the fast path and through ethereumjs. */
export async function differential(env: Env, req: CallRequest, gas: bigint): Promise<Differential> {
  const before = fastCallStats.answered
  const bailsBefore = fastCallStats.bailed
  const fast = await run(env, req, gas, true)
  const answered = fastCallStats.answered > before
  const bailed = fastCallStats.bailed > bailsBefore
  return {
    fast,
    slow: await run(env, req, gas, false),
    answered,
    bailReason: bailed ? fastCallStats.lastBailReason : undefined,
  }
}

/** A comparable view of a path result (hex return data). */
export function shown(r: PathResult) {
  if (r.outcome === undefined) return { thrown: r.thrown }
  const o = r.outcome
  return { ret: Buffer.from(o.returnValue).toString('hex'), gasUsed: o.gasUsed, error: o.error, reverted: o.reverted }
}
