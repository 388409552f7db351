/**
 * Reads on a generated big-state datadir (generate.ts), shared by `npm run bench:bigstate` and the
 * CI gate: start `ibex start` on it and time the first answer, check it serves what the generator
 * wrote, the read mix over distinct accounts, token slots and transactions, getLogs over 10k blocks.
 */
import { execFileSync } from 'node:child_process'
import type { LoadRequest } from '../load/index.js'
import { ibexStartArgs } from '../peers/ibex.js'
import { freePort, spawnTracked, type Tracked } from '../peers/process.js'
import { rpc, rpcTimed } from '../rpc.js'
import { addressWord, selector } from '../seed/sign.js'
import { TRANSFER_TOPIC } from '../scenarios/requests.js'
import { prng } from '../../src/util/prng.js'
import { type BigStateManifest, bigStatePaths } from './generate.js'
import { accountAddress, balanceSlot } from './plan.js'

/** `ibex start` flags turning every explorer index off (for a datadir generated without them). */
export const EXPLORER_OFF_FLAGS = [
  '--explorer.index-appearances=false',
  '--explorer.index-sender-nonce=false',
  '--explorer.index-creators=false',
  '--explorer.index-fees=false',
  '--explorer.index-reverts=false',
]
/** How long `ibex start` may take to answer at all. */
const START_TIMEOUT_MS = 120_000
/** Poll interval while waiting for the first answer. */
const START_POLL_MS = 10
/** Requests in a read-mix list: more than a node answers in one point, so (almost) none repeats. */
export const MIX_REQUESTS = 60_000
/** Blocks one eth_getLogs of the mix spans (a dapp polling its token's recent Transfers). */
const MIX_LOGS_SPAN = 100
/** Blocks of the getLogs measurement. */
export const LOGS_SPAN = 10_000
/** Runs of each getLogs query (the median is reported). */
const LOGS_RUNS = 5

/**
 * The big-state read mix: method → share of requests (sums to 100). A public RPC host's shares
 * (eth_call first, then receipts, blockNumber, balances), with account and slot reads split out
 * and every key drawn at random from the whole state: no hot key.
 */
export const BIG_MIX: Record<string, number> = {
  eth_call: 30,
  eth_getBalance: 20,
  eth_getStorageAt: 15,
  eth_getTransactionReceipt: 12,
  eth_blockNumber: 10,
  eth_getBlockByNumber: 6,
  eth_getTransactionByHash: 5,
  eth_getLogs: 2,
}

export interface ServedBigState {
  url: string
  proc: Tracked
  /** Spawn to the first eth_getBalance answered, ms. */
  startMs: number
}

/** `args` logging at info: the flat account table's build is logged there (awaitFlatTable). */
function withInfoLog(args: string[]): string[] {
  const at = args.indexOf('--log-level')
  return at < 0 ? [...args, '--log-level', 'info'] : args.map((a, i) => (i === at + 1 ? 'info' : a))
}

/** Starts ibex on a generated directory and times spawn → first eth_getBalance answer (of a funded account). */
export async function startBigState(out: string, manifest: BigStateManifest, cpus?: string): Promise<ServedBigState> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const account = accountAddress(manifest.options.seed, 0)
  const t = performance.now()
  const proc = spawnTracked(
    'ibex (big state)',
    process.execPath,
    [
      ...withInfoLog(ibexStartArgs({ dir: out }, '0', port)),
      ...(manifest.explorerIndexes === true ? [] : EXPLORER_OFF_FLAGS),
    ],
    { cpus },
  )
  for (;;) {
    try {
      await rpc(url, 'eth_getBalance', [account, 'latest'], 5_000)
      return { url, proc, startMs: performance.now() - t }
    } catch {
      if (!proc.running()) throw new Error(`ibex exited before serving:\n${proc.output().slice(-2000)}`)
      if (performance.now() - t > START_TIMEOUT_MS) throw new Error(`ibex did not answer in ${START_TIMEOUT_MS} ms`)
      await new Promise((r) => setTimeout(r, START_POLL_MS))
    }
  }
}

/** Longest wait for a node to build its flat account table (a datadir from before the table), ms. */
const FLAT_BUILD_TIMEOUT_MS = 60 * 60_000
const FLAT_BUILD_POLL_MS = 250

/**
 * When the node started building its flat account table (src/state/flatAccounts.ts: a datadir
 * generated before the table existed), waits until it is built, so that the reads measured are
 * the ones a node serves from then on; returns how long that took (ms), or 0 when there was nothing
 * to build. The node logs `building` before it serves its first answer, so no start is missed.
 */
export async function awaitFlatTable(node: ServedBigState): Promise<number> {
  if (!node.proc.output().includes('flat account table: building')) return 0
  const t = performance.now()
  while (!node.proc.output().includes('flat account table: built')) {
    if (!node.proc.running())
      throw new Error(`ibex exited while building its flat account table:\n${node.proc.output().slice(-2000)}`)
    if (performance.now() - t > FLAT_BUILD_TIMEOUT_MS)
      throw new Error(`no flat account table after ${FLAT_BUILD_TIMEOUT_MS} ms`)
    await new Promise((r) => setTimeout(r, FLAT_BUILD_POLL_MS))
  }
  return performance.now() - t
}

/** Throws unless the node serves the generator's head, balances, slots, receipts and logs. */
export async function checkServes(url: string, m: BigStateManifest): Promise<void> {
  const head = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
  if (head.hash !== m.headHash || head.stateRoot !== m.stateRoot || Number(head.number) !== m.head)
    throw new Error(`head ${head.number} ${head.hash} (root ${head.stateRoot}), generated ${m.head} ${m.headHash}`)
  const balance = BigInt(await rpc(url, 'eth_getBalance', [accountAddress(m.options.seed, 0), 'latest']))
  if (balance === 0n) throw new Error('funded account 0 has no balance')
  const [token, holder] = m.holdings[0] ?? []
  if (token !== undefined && holder !== undefined) {
    const slot = BigInt(await rpc(url, 'eth_getStorageAt', [token, balanceSlot(holder), 'latest']))
    if (slot === 0n) throw new Error(`token ${token} holds no balance for ${holder}`)
  }
  const [hash, block] = m.transfers[0] ?? []
  if (hash !== undefined && block !== undefined) {
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
    if (receipt?.status !== '0x1' || Number(receipt.blockNumber) !== block)
      throw new Error(`receipt of ${hash}: ${JSON.stringify(receipt)}`)
    const logs = await rpc(url, 'eth_getLogs', [
      { fromBlock: `0x${block.toString(16)}`, toBlock: `0x${block.toString(16)}`, topics: [TRANSFER_TOPIC] },
    ])
    if (!Array.isArray(logs) || !logs.some((l: { transactionHash: string }) => l.transactionHash === hash))
      throw new Error(`eth_getLogs of block ${block} misses ${hash}`)
  }
}

const quantity = (n: number): string => `0x${n.toString(16)}`
const BALANCE_OF = selector('balanceOf(address)')

/**
 * The read mix's list over the generated state, from a fixed-seed PRNG (same list for the same
 * manifest); with `only`, a list of that method alone, its keys drawn the same way.
 */
export function bigMixRequests(m: BigStateManifest, count = MIX_REQUESTS, seed = 7, only?: string): LoadRequest[] {
  const rand = prng(seed)
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)] as T
  const account = (): string => accountAddress(m.options.seed, Math.floor(rand() * m.options.accounts))
  // half the slots and balanceOf calls hit a holder, half a random account (mostly an empty slot)
  const holding = (): [string, string] => (rand() < 0.5 ? pick(m.holdings) : [pick(m.tokens), account()])
  const make: Record<string, () => unknown[]> = {
    eth_call: () => {
      const [token, holder] = holding()
      return [{ to: token, data: `0x${BALANCE_OF}${addressWord(holder)}` }, 'latest']
    },
    eth_getBalance: () => [account(), 'latest'],
    eth_getStorageAt: () => {
      const [token, holder] = holding()
      return [token, balanceSlot(holder), 'latest']
    },
    eth_getTransactionReceipt: () => [pick(m.transfers)[0]],
    eth_blockNumber: () => [],
    eth_getBlockByNumber: () => [quantity(1 + Math.floor(rand() * m.head)), false],
    eth_getTransactionByHash: () => [pick(m.transfers)[0]],
    eth_getLogs: () => {
      const [, block] = pick(m.transfers)
      const from = Math.max(1, block - Math.floor(rand() * MIX_LOGS_SPAN))
      return [
        {
          address: pick(m.tokens),
          fromBlock: quantity(from),
          toBlock: quantity(Math.min(m.head, from + MIX_LOGS_SPAN - 1)),
          topics: [TRANSFER_TOPIC],
        },
      ]
    },
  }
  const methods = Object.entries(BIG_MIX)
  const out: LoadRequest[] = []
  for (let i = 0; i < count; i++) {
    let r = rand() * 100
    let method = only ?? (methods[0] as [string, number])[0]
    if (only === undefined)
      for (const [name, share] of methods) {
        if (r < share) {
          method = name
          break
        }
        r -= share
      }
    const params = (make[method] as () => unknown[])()
    out.push({ tag: method, body: JSON.stringify({ jsonrpc: '2.0', id: i, method, params }) })
  }
  return out
}

/** Median ms of getLogs over the last LOGS_SPAN blocks: a token's Transfers, and one holder's incoming Transfers. */
export async function logsOver10k(
  url: string,
  m: BigStateManifest,
): Promise<Record<string, { ms: number; logs: number }>> {
  const from = quantity(Math.max(0, m.head - LOGS_SPAN + 1))
  const to = quantity(m.head)
  const [token, holder] = m.holdings[0] ?? [m.tokens[0] as string, accountAddress(m.options.seed, 0)]
  const queries: Record<string, unknown> = {
    "a token's Transfers": { address: token, fromBlock: from, toBlock: to, topics: [TRANSFER_TOPIC] },
    "a holder's incoming Transfers (all tokens)": {
      fromBlock: from,
      toBlock: to,
      topics: [TRANSFER_TOPIC, null, `0x${addressWord(holder)}`],
    },
  }
  const result: Record<string, { ms: number; logs: number }> = {}
  for (const [name, filter] of Object.entries(queries)) {
    const times: number[] = []
    let logs = 0
    for (let i = 0; i < LOGS_RUNS; i++) {
      const r = await rpcTimed(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [filter] }))
      const answer = r.json as { result?: unknown[]; error?: { message: string } }
      if (answer.error !== undefined) throw new Error(`eth_getLogs ${name}: ${answer.error.message}`)
      logs = answer.result?.length ?? 0
      times.push(r.ms)
    }
    times.sort((a, b) => a - b)
    result[name] = { ms: times[Math.floor(times.length / 2)] as number, logs }
  }
  return result
}

/** Bytes on disk of the datadir's chaindata (du). */
export function diskBytes(out: string): number {
  const line = execFileSync('du', ['-sb', `${bigStatePaths(out).datadir}/chaindata`], { encoding: 'utf8' })
  return Number(line.split('\t')[0])
}
