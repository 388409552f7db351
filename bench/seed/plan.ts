/**
 * The seeded state, identical on every node: one list of steps, each a signed transaction mined
 * alone in its block or a run of empty blocks, so block numbers and transaction hashes agree
 * across nodes (block hashes do not: each node seals its own way).
 *
 *   block 1        BenchToken deployed by dev account 0 (all supply to it)
 *   block 2        Disperse deployed
 *   blocks 3…      Disperse funds the write-path senders, FUND_CHUNK per transaction
 *   then ×history  transferMany to `transfersPerTx` holders (one Transfer log each), followed by
 *                  `gap` empty blocks: a dense Transfer history over history × (gap + 1) blocks
 */
import { devAccounts } from '../../src/config/accounts.js'
import { compileBench } from '../../test/helpers/compile.js'
import {
  bytes,
  createdAddress,
  derivedKey,
  encodeAddressArrayCall,
  type Key,
  keyOf,
  type SignedTx,
  signTx,
  word,
} from './sign.js'

/** Senders funded per Disperse transaction (≈35k gas each: stays under Osaka's 16.7M per-tx cap). */
const FUND_CHUNK = 250
/** Wei each write-path sender gets: enough for hundreds of transfers at the seed's fee cap. */
const SENDER_FUNDS_WEI = 10n ** 18n
const TOKEN_SUPPLY = 10n ** 27n

export interface SeedOptions {
  /** transferMany transactions in the history. */
  historyTxs: number
  transfersPerTx: number
  /** Empty blocks after each history transaction. */
  gap: number
  /** Funded accounts for the write path (also token holders, the first `holders` of them). */
  senders: number
  holders: number
}

export const DEFAULT_SEED: SeedOptions = { historyTxs: 1000, transfersPerTx: 16, gap: 9, senders: 2000, holders: 200 }

export type SeedStep = { kind: 'tx'; tx: SignedTx; what: string } | { kind: 'empty'; blocks: number }

export interface SeedPlan {
  options: SeedOptions
  steps: SeedStep[]
  /** Head block number once every step ran. */
  head: number
  token: string
  disperse: string
  deployer: Key
  senders: Key[]
  holders: string[]
  /** Hashes of the history transactions and the blocks they are in. */
  history: { hash: string; block: number }[]
  /** Runtime code of BenchToken (to check the deployment). */
  tokenRuntime: string
}

export function buildSeedPlan(options: SeedOptions = DEFAULT_SEED): SeedPlan {
  const compiled = compileBench()
  const dev0 = devAccounts(1)[0] as { privateKey: string }
  const deployer = keyOf(bytes(dev0.privateKey))
  const senders: Key[] = []
  for (let i = 0; i < options.senders; i++) senders.push(derivedKey('sender', i))
  const holders = senders.slice(0, Math.min(options.holders, senders.length)).map((k) => k.hex)
  const steps: SeedStep[] = []
  let nonce = 0n
  let block = 0
  const tx = (what: string, to: string | undefined, value: bigint, data: Uint8Array, gas: bigint): SignedTx => {
    const signed = signTx(deployer, { nonce: nonce++, to: to === undefined ? undefined : bytes(to), value, data, gas })
    steps.push({ kind: 'tx', tx: signed, what })
    block++
    return signed
  }
  const token = createdAddress(deployer.address, nonce)
  tx('deploy BenchToken', undefined, 0n, bytes(compiled.BenchToken.bytecode + word(TOKEN_SUPPLY)), 2_000_000n)
  const disperse = createdAddress(deployer.address, nonce)
  tx('deploy Disperse', undefined, 0n, bytes(compiled.Disperse.bytecode), 1_000_000n)
  for (let i = 0; i < senders.length; i += FUND_CHUNK) {
    const chunk = senders.slice(i, i + FUND_CHUNK).map((k) => k.hex)
    const data = encodeAddressArrayCall('disperse(address[])', chunk)
    tx('fund senders', disperse, SENDER_FUNDS_WEI * BigInt(chunk.length), data, 12_000_000n)
  }
  const history: { hash: string; block: number }[] = []
  for (let i = 0; i < options.historyTxs; i++) {
    const to: string[] = []
    for (let j = 0; j < options.transfersPerTx; j++)
      to.push(holders[(i * options.transfersPerTx + j) % holders.length] as string)
    const data = encodeAddressArrayCall('transferMany(address[],uint256)', to, [1000n + BigInt(i)])
    const signed = tx('transferMany', token, 0n, data, 200_000n + 60_000n * BigInt(options.transfersPerTx))
    history.push({ hash: signed.hash, block })
    if (options.gap > 0) {
      steps.push({ kind: 'empty', blocks: options.gap })
      block += options.gap
    }
  }
  return {
    options,
    steps,
    head: block,
    token,
    disperse,
    deployer,
    senders,
    holders,
    history,
    tokenRuntime: compiled.BenchToken.runtime,
  }
}
