/**
 * Request bodies the scenarios send, drawn from the seeded state with a fixed-seed PRNG, so every
 * node gets the same list in the same order. The read mix's weights are those of a public RPC
 * host's traffic: eth_call ≈ 52%, then receipts, blockNumber, balance, chainId, blocks,
 * transactions, logs.
 */
import type { LoadRequest } from '../load/index.js'
import type { SeedPlan } from '../seed/plan.js'
import { addressWord, selector } from '../seed/sign.js'
import { prng } from '../../src/util/prng.js'

/** Requests per generated list (rotated through by the generators). */
export const LIST_SIZE = 4000
/** Blocks one eth_getLogs of the read mix spans (a dapp polling a recent window). */
export const MIX_LOGS_SPAN = 100

/** The read mix: method → share of requests (sums to 100). */
export const READ_MIX: Record<string, number> = {
  eth_call: 52,
  eth_getTransactionReceipt: 12,
  eth_blockNumber: 10,
  eth_getBalance: 8,
  eth_chainId: 6,
  eth_getBlockByNumber: 6,
  eth_getTransactionByHash: 4,
  eth_getLogs: 2,
}

export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const BALANCE_OF = selector('balanceOf(address)')

function body(method: string, params: unknown[], id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params })
}

const quantity = (n: number): string => `0x${n.toString(16)}`

export class RequestFactory {
  readonly plan: SeedPlan
  readonly #rand: () => number
  constructor(plan: SeedPlan, seed = 1) {
    this.plan = plan
    this.#rand = prng(seed)
  }

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.#rand() * list.length)] as T
  }

  /** A holder most of the time (non-zero balances), else another funded sender. */
  #account(): string {
    return this.#rand() < 0.8 ? this.#pick(this.plan.holders) : this.#pick(this.plan.senders).hex
  }

  params(method: string): unknown[] {
    const plan = this.plan
    switch (method) {
      case 'eth_call':
        return [{ to: plan.token, data: `0x${BALANCE_OF}${addressWord(this.#account())}` }, 'latest']
      case 'eth_getBalance':
        return [this.#account(), 'latest']
      case 'eth_getTransactionReceipt':
      case 'eth_getTransactionByHash':
        return [this.#pick(plan.history).hash]
      case 'eth_getBlockByNumber': {
        // half the head, half a block of the history (full transactions for those)
        if (this.#rand() < 0.5) return ['latest', false]
        return [quantity(this.#pick(plan.history).block), true]
      }
      case 'eth_getLogs': {
        const to = Math.floor(this.#rand() * (plan.head - MIX_LOGS_SPAN)) + MIX_LOGS_SPAN
        return [
          {
            fromBlock: quantity(to - MIX_LOGS_SPAN + 1),
            toBlock: quantity(to),
            address: plan.token,
            topics: [TRANSFER_TOPIC],
          },
        ]
      }
      default:
        return []
    }
  }

  /** `n` requests of one method. */
  single(method: string, n = LIST_SIZE, params?: () => unknown[]): LoadRequest[] {
    const out: LoadRequest[] = []
    for (let i = 0; i < n; i++) out.push({ tag: method, body: body(method, params ? params() : this.params(method)) })
    return out
  }

  /** The read mix, shuffled, `n` requests. */
  mix(n = LIST_SIZE): LoadRequest[] {
    const methods: string[] = []
    for (const [m, w] of Object.entries(READ_MIX)) for (let i = 0; i < (w * n) / 100; i++) methods.push(m)
    for (let i = methods.length - 1; i > 0; i--) {
      const j = Math.floor(this.#rand() * (i + 1))
      ;[methods[i], methods[j]] = [methods[j] as string, methods[i] as string]
    }
    return methods.map((m) => ({ tag: m, body: body(m, this.params(m)) }))
  }

  /** Batches of `size` read-mix calls (no eth_getLogs), `n` batches. */
  batches(size: number, n: number): LoadRequest[] {
    const out: LoadRequest[] = []
    const calls = this.mix(Math.max(size * 2, 200)).filter((r) => r.tag !== 'eth_getLogs')
    let k = 0
    for (let b = 0; b < n; b++) {
      const items: string[] = []
      for (let i = 0; i < size; i++) {
        const one = JSON.parse((calls[k++ % calls.length] as LoadRequest).body)
        one.id = i + 1
        items.push(JSON.stringify(one))
      }
      out.push({ tag: `batch ${size}`, body: `[${items.join(',')}]`, calls: size })
    }
    return out
  }

  /** eth_getLogs of the token's Transfers over the last `span` blocks; `to` narrows to one recipient. */
  logs(span: number, to?: string): string {
    const from = Math.max(0, this.plan.head - span + 1)
    const topics: (string | null)[] = [TRANSFER_TOPIC]
    if (to !== undefined) topics.push(null, `0x${addressWord(to)}`)
    return body('eth_getLogs', [
      { fromBlock: quantity(from), toBlock: quantity(this.plan.head), address: this.plan.token, topics },
    ])
  }

  /** debug_traceTransaction (struct logger, the default) of history transactions. */
  traces(n: number): LoadRequest[] {
    const out: LoadRequest[] = []
    for (let i = 0; i < n; i++) {
      out.push({
        tag: 'debug_traceTransaction',
        body: body('debug_traceTransaction', [this.#pick(this.plan.history).hash, { disableStorage: true }]),
      })
    }
    return out
  }
}
