/**
 * `ibex faucet`: a testnet/dev faucet beside a node (never mainnet: it refuses chain 786).
 *
 *   GET  /          the page (page.ts)
 *   POST /faucet    {"address": "0x…"} ─▶ valid address? ─no─▶ 400 invalid address
 *                   ─▶ FaucetState.check(address, client IP): cooling down ─▶ 429 + Retry-After
 *                                                             daily budget spent ─▶ 503 + Retry-After
 *                   ─▶ balance covers it? ─no─▶ 503 faucet is empty
 *                   ─▶ reserve (written to disk) ─▶ FaucetSender.send ─ok─▶ 200 {txHash, amount}
 *                                                                   └─fails─▶ release, 502
 *   GET  /health    {"status":"ok", address, balance}
 *
 * Answers are JSON `{"error": "…"}` with a sentence a person can act on.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isAbsolute, join } from 'node:path'

import { isValidChecksumAddress } from '@ethereumjs/util'

import { NETWORK_CHAIN_IDS } from '../../config/defaults.js'
import type { IbexConfig } from '../../config/types.js'
import type { Logger } from '../../log.js'
import { clientAddress, ProxyList } from '../../rpc/server/limits.js'
import { faucetPage } from './page.js'
import { FaucetSender, NodeRpcError } from './sender.js'
import { FaucetState } from './state.js'

/** Largest POST /faucet body: an address in JSON is ~60 bytes. */
export const FAUCET_MAX_BODY_BYTES = 1024
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/

/** formatCoins renders wei as coins with up to 6 decimals: 1500000000000000000 → "1.5". */
export function formatCoins(wei: bigint): string {
  const whole = wei / 10n ** 18n
  const frac = (wei % 10n ** 18n).toString().padStart(18, '0').slice(0, 6).replace(/0+$/, '')
  return frac === '' ? whole.toString() : `${whole}.${frac}`
}

/** formatWait renders a duration for people: "23 h 59 min", "4 min", "12 s". */
export function formatWait(ms: number): string {
  const s = Math.ceil(ms / 1000)
  if (s < 60) return `${s} s`
  const min = Math.ceil(s / 60)
  if (min < 60) return `${min} min`
  const h = Math.floor(min / 60)
  return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`
}

export interface FaucetOptions {
  config: IbexConfig
  privateKey: Uint8Array
  log: Logger
}

export interface RunningFaucet {
  url: string
  address: string
  chainId: bigint
  stop(): Promise<void>
}

/** The faucet's answer to one request. */
interface Answer {
  status: number
  body: Record<string, unknown>
  retryAfterSeconds?: number
}

export class Faucet {
  readonly sender: FaucetSender
  readonly state: FaucetState
  readonly #config: IbexConfig
  readonly #proxies: ProxyList
  readonly #log: Logger
  readonly #page: string
  readonly #server: Server

  constructor(o: FaucetOptions) {
    const f = o.config.faucet
    this.#config = o.config
    this.#log = o.log
    this.sender = new FaucetSender(f.rpcUrl, o.privateKey)
    const statePath = isAbsolute(f.stateFile) ? f.stateFile : join(o.config.datadir, f.stateFile)
    this.state = FaucetState.load(statePath, f.cooldownMs)
    this.#proxies = new ProxyList(f.trustedProxies)
    this.#page = faucetPage({
      chainName: o.config.chain.name,
      symbol: o.config.chain.tokenSymbol,
      amount: formatCoins(f.amountWei),
      cooldown: formatWait(f.cooldownMs),
    })
    this.#server = createServer((req, res) => void this.#onRequest(req, res))
  }

  /** Checks the node (reachable, not mainnet) and listens. */
  async start(): Promise<RunningFaucet> {
    const chainId = await this.sender.chainId()
    if (chainId === BigInt(NETWORK_CHAIN_IDS.mainnet)) {
      throw new Error(
        `the node at ${this.sender.rpcUrl} runs mainnet (chain ${chainId}): the faucet serves only testnet and dev chains`,
      )
    }
    const f = this.#config.faucet
    const url = await new Promise<string>((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(f.port, f.host, () => {
        this.#server.off('error', reject)
        const { port } = this.#server.address() as AddressInfo
        resolve(`http://${f.host.includes(':') ? `[${f.host}]` : f.host}:${port}`)
      })
    })
    return {
      url,
      address: this.sender.address,
      chainId,
      stop: () =>
        new Promise<void>((resolve) => {
          this.#server.close(() => resolve())
          this.#server.closeIdleConnections()
        }),
    }
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]
    let answer: Answer
    try {
      if (req.method === 'GET' && (path === '/' || path === '/index.html')) {
        res.setHeader('Content-Type', 'text/html; charset=utf-8')
        res.end(this.#page)
        return
      }
      if (req.method === 'GET' && path === '/health') answer = await this.#health()
      else if (req.method === 'POST' && path === '/faucet') answer = await this.#onPost(req)
      else answer = { status: 404, body: { error: 'not found: GET / for the page, POST /faucet {"address": "0x…"}' } }
    } catch (err) {
      this.#log.error(`faucet: ${(err as Error).stack ?? String(err)}`)
      answer = { status: 500, body: { error: 'internal error' } }
    }
    res.statusCode = answer.status
    // the rest of a too-large body is not read: the connection ends with this answer
    if (answer.status === 413) res.setHeader('Connection', 'close')
    res.setHeader('Content-Type', 'application/json')
    if (answer.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(answer.retryAfterSeconds))
    res.end(JSON.stringify(answer.body))
  }

  async #health(): Promise<Answer> {
    const balance = await this.sender.balance()
    return { status: 200, body: { status: 'ok', address: this.sender.address, balance: formatCoins(balance) } }
  }

  async #onPost(req: IncomingMessage): Promise<Answer> {
    const text = await readBody(req)
    if (text === undefined)
      return { status: 413, body: { error: `request too large (over ${FAUCET_MAX_BODY_BYTES} bytes)` } }
    let address: unknown
    try {
      address = (JSON.parse(text) as { address?: unknown }).address
    } catch {
      return { status: 400, body: { error: 'expected a JSON body {"address": "0x…"}' } }
    }
    if (typeof address !== 'string' || !ADDRESS_RE.test(address)) {
      return {
        status: 400,
        body: { error: `invalid address ${JSON.stringify(address ?? null)}: expected 0x followed by 40 hex digits` },
      }
    }
    const lower = address.toLowerCase()
    const mixed = address.slice(2) !== lower.slice(2) && address.slice(2) !== address.slice(2).toUpperCase()
    if (mixed && !isValidChecksumAddress(address)) {
      return {
        status: 400,
        body: {
          error: `invalid address ${address}: the EIP-55 checksum (mixed case) does not match; check for a typo`,
        },
      }
    }
    const f = this.#config.faucet
    const symbol = this.#config.chain.tokenSymbol
    const ip = clientAddress(req, this.#proxies)
    const now = Date.now()
    const refusal = this.state.check(lower, ip, f.amountWei, f.dailyBudgetWei, now)
    if (refusal !== undefined) {
      const retryAfterSeconds = Math.ceil(refusal.waitMs / 1000)
      const wait = formatWait(refusal.waitMs)
      const ago = refusal.lastMs === undefined ? '' : formatWait(now - refusal.lastMs)
      if (refusal.kind === 'daily-budget') {
        return {
          status: 503,
          retryAfterSeconds,
          body: {
            error: `the daily budget of ${formatCoins(f.dailyBudgetWei)} ${symbol} is spent; try again after 00:00 UTC (in ${wait})`,
            retryAfter: retryAfterSeconds,
          },
        }
      }
      const who = refusal.kind === 'address-cooldown' ? address : 'your IP address'
      return {
        status: 429,
        retryAfterSeconds,
        body: {
          error: `cooling down: ${who} was served ${ago} ago; try again in ${wait}`,
          retryAfter: retryAfterSeconds,
        },
      }
    }
    // reserve before anything awaits: a second request for the same address now sees the cooldown
    const reservation = this.state.reserve(lower, ip, f.amountWei, now)
    try {
      const balance = await this.sender.balance()
      if (balance < f.amountWei) {
        this.state.release(reservation)
        return {
          status: 503,
          body: {
            error: `the faucet is empty: ${formatCoins(balance)} ${symbol} left, each request sends ${formatCoins(f.amountWei)}; please tell the operators`,
          },
        }
      }
      const txHash = await this.sender.send(address, f.amountWei)
      this.#log.info(`faucet: sent ${formatCoins(f.amountWei)} ${symbol} to ${address} (${ip}) in ${txHash}`)
      return { status: 200, body: { txHash, address, amount: `${formatCoins(f.amountWei)} ${symbol}` } }
    } catch (err) {
      this.state.release(reservation)
      if (err instanceof NodeRpcError) {
        this.#log.warn(`faucet: sending to ${address} failed: ${err.message}`)
        return {
          status: 502,
          body: { error: `the node did not take the transaction (${err.message}); nothing was sent, try again later` },
        }
      }
      throw err
    }
  }
}

/**
 * The request body as text, or undefined when over FAUCET_MAX_BODY_BYTES (declared or counted).
 * An oversized body is drained, not the socket destroyed: destroying it resets the connection
 * before the 413 can reach the client.
 */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > FAUCET_MAX_BODY_BYTES) {
      req.resume()
      resolve(undefined)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > FAUCET_MAX_BODY_BYTES) {
        chunks.length = 0
        req.removeAllListeners('data')
        req.resume()
        resolve(undefined)
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
