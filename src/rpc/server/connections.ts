/**
 * The per-address connection cap of the JSON-RPC port (`jsonrpc.max_connections_per_ip`).
 * `max_connections` alone is one pool for everyone: a single address that opens that many silent
 * sockets locks every other client out until they time out. This cap stands in front of the
 * server's connection listener (the fast path's, or node:http's):
 *
 *   accept (node:net; over max_connections ─▶ closed by node) ─▶ address key: the peer's IP,
 *     an IPv6 peer's /64 (one subscriber's prefix, as one IPv4 address)
 *     ─▶ a trusted proxy? ─▶ passes uncounted (its clients are told apart by the proxy, not here)
 *     ─▶ open from this key < cap? ─no─▶ socket.destroy(): closed at once, nothing read or written
 *     ─▶ counted; the socket's `close` uncounts it ─▶ the wrapped listener (HTTP, then perhaps WS)
 *
 * Over-cap sockets are closed at accept rather than answered 503/429: nothing of theirs is read yet,
 * so no request could be answered without first reading one, and a flood costs one accept and one
 * close per socket — the same treatment node gives sockets over `max_connections`.
 *
 * The key is the socket's address, never X-Forwarded-For: nothing has been read when the cap
 * decides. Trusted proxies are exempt because every client behind them shares their address; the
 * proxy must cap per client (the README's operator section says how).
 *
 * What always holds: a key's count equals its sockets not yet closed; keys at zero are deleted, so
 * the map holds at most one entry per open socket.
 */
import type { Server } from 'node:http'
import { isIP, type Socket } from 'node:net'

import { normalizeIp, type ProxyList } from './limits.js'

/** IPv6 groups that form a subscriber's prefix (/64): ISPs give a home or a server a /64, so one address of it is not one client. */
const IPV6_PREFIX_GROUPS = 4

const kCap = Symbol('ibex.rpc.connectionCap')
const kKey = Symbol('ibex.rpc.connectionKey')
type CountedSocket = Socket & { [kCap]: ConnectionCap; [kKey]: string }

function onCountedClose(this: CountedSocket): void {
  this[kCap].release(this[kKey])
}

/** connectionKey: what the cap counts a peer under — its IPv4 address, or its IPv6 address's /64 as `a:b:c:d::/64`. */
export function connectionKey(remote: string): string {
  const ip = normalizeIp(remote.toLowerCase())
  if (isIP(ip) !== 6) return ip
  const [head, tail] = ip.split('::') as [string, string | undefined]
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  // an embedded IPv4 tail is two groups; it only matters when it reaches into the prefix
  const rightGroups = right.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0)
  const zeros = tail === undefined ? 0 : 8 - left.length - rightGroups
  const groups = [...left, ...new Array<string>(Math.max(0, zeros)).fill('0'), ...right]
  const prefix = groups.slice(0, IPV6_PREFIX_GROUPS).map((g) => (g.includes('.') ? '0' : g.replace(/^0+(?=.)/, '')))
  return `${prefix.join(':')}::/64`
}

export class ConnectionCap {
  readonly maxPerKey: number
  readonly #proxies: ProxyList
  readonly #open = new Map<string, number>()
  #refused = 0

  constructor(maxPerKey: number, proxies: ProxyList) {
    this.maxPerKey = maxPerKey
    this.#proxies = proxies
  }

  /**
   * Puts the cap in front of `server`'s `connection` listeners (install it after the fast path, so
   * it runs first); undefined when `maxPerKey` is 0 (no cap).
   */
  static install(server: Server, maxPerKey: number, proxies: ProxyList): ConnectionCap | undefined {
    if (maxPerKey <= 0) return undefined
    const cap = new ConnectionCap(maxPerKey, proxies)
    const inner = server.listeners('connection') as ((socket: Socket) => void)[]
    server.removeAllListeners('connection')
    server.on('connection', function capped(this: Server, socket: Socket) {
      if (!cap.admit(socket)) return
      for (const listener of inner) listener.call(this, socket)
    })
    return cap
  }

  /** Sockets closed at accept since start. */
  get refused(): number {
    return this.#refused
  }

  /** Open sockets counted under `key` (connectionKey). */
  openFrom(key: string): number {
    return this.#open.get(key) ?? 0
  }

  /** Keys with open sockets. */
  get keys(): number {
    return this.#open.size
  }

  /** Counts `socket` and returns true, or closes it and returns false when its key is at the cap. */
  admit(socket: Socket): boolean {
    const remote = socket.remoteAddress
    // a socket already gone has no address: nothing to count, nothing to serve
    if (remote === undefined) {
      socket.destroy()
      return false
    }
    if (!this.#proxies.empty && this.#proxies.has(normalizeIp(remote.toLowerCase()))) return true
    const key = connectionKey(remote)
    const open = this.#open.get(key) ?? 0
    if (open >= this.maxPerKey) {
      this.#refused++
      socket.destroy()
      return false
    }
    this.#open.set(key, open + 1)
    const counted = socket as CountedSocket
    counted[kCap] = this
    counted[kKey] = key
    socket.on('close', onCountedClose)
    return true
  }

  /** @internal A counted socket closed. */
  release(key: string): void {
    const open = (this.#open.get(key) ?? 1) - 1
    if (open <= 0) this.#open.delete(key)
    else this.#open.set(key, open)
  }
}
