/**
 * Value parsers shared by the flags and the TOML file. Each takes the raw value — a string from
 * the command line, or a TOML value (string, bigint, float, boolean, array) — and returns the typed
 * value or throws a ValueProblem. None of them corrects a value: what is not accepted is an error.
 */
import { isIP } from 'node:net'

import { ValueProblem } from './errors.js'
import type { LogFormat, LogLevel, NetworkName, RpcNamespace } from './types.js'

export const NETWORKS: readonly NetworkName[] = ['dev', 'testnet', 'mainnet']
export const LOG_LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error', 'silent']
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text']
export const RPC_NAMESPACES: readonly RpcNamespace[] = [
  'eth',
  'net',
  'web3',
  'txpool',
  'debug',
  'personal',
  'evm',
  'anvil',
  'hardhat',
  'testing',
  // the validator layer (issue 19): Bor's block-producer methods and ibex's spans and validators
  'bor',
  'validators',
  // Otterscan's API (issue 21): ots_ and erigon_getHeaderByNumber (`ots` serves both)
  'ots',
  'erigon',
  // trace_replayTransaction's stateDiff, Otterscan's State Diff tab
  'trace',
]

const DECIMAL = /^[0-9]+$/
const WEI_UNITS: Record<string, number> = { wei: 0, gwei: 9, ether: 18 }

/** describeValue renders a raw value for an error message: strings quoted, arrays bracketed. */
export function describeValue(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw)
  if (Array.isArray(raw)) return `[${raw.map(describeValue).join(', ')}]`
  if (raw !== null && typeof raw === 'object' && !(raw instanceof Date) && raw.constructor === Object) return 'a table'
  return String(raw)
}

export function parseBoolean(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw
  if (raw === 'true') return true
  if (raw === 'false') return false
  throw new ValueProblem('expected true or false')
}

/** parseBigInt accepts a TOML integer or a decimal string (flags), with `min <= n <= max`. */
export function parseBigInt(raw: unknown, min: bigint, max: bigint | undefined, expected: string): bigint {
  let n: bigint | undefined
  if (typeof raw === 'bigint') n = raw
  else if (typeof raw === 'string' && DECIMAL.test(raw)) n = BigInt(raw)
  if (n === undefined || n < min || (max !== undefined && n > max)) throw new ValueProblem(expected)
  return n
}

/** parseInteger is parseBigInt for values that fit a JS number. */
export function parseInteger(raw: unknown, min: number, max: number): number {
  const expected =
    max === Number.MAX_SAFE_INTEGER ? `expected an integer >= ${min}` : `expected an integer ${min}-${max}`
  return Number(parseBigInt(raw, BigInt(min), BigInt(max), expected))
}

export function parsePort(raw: unknown): number {
  return parseInteger(raw, 0, 65535)
}

/**
 * parseDurationMs reads `0`, `2` (seconds), `1.5`, `2s`, `1.5s`, `500ms`; TOML numbers are seconds.
 * The result must be a whole number of milliseconds, at least `minMs`.
 */
export function parseDurationMs(raw: unknown, minMs = 0): number {
  const expected = `expected a duration such as 0, 2, 1.5, 2s or 500ms${minMs > 0 ? ` (at least ${minMs}ms)` : ''}`
  let ms: number | undefined
  if (typeof raw === 'bigint') ms = Number(raw) * 1000
  else if (typeof raw === 'number') ms = raw * 1000
  else if (typeof raw === 'string') {
    const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s)?$/.exec(raw)
    if (m) ms = Number(m[1]) * (m[2] === 'ms' ? 1 : 1000)
  }
  if (ms !== undefined) ms = Math.round(ms * 1e6) / 1e6 // 0.1 * 1000 = 100.00000000000001
  if (ms === undefined || !Number.isSafeInteger(ms) || ms < minMs) throw new ValueProblem(expected)
  return ms
}

/**
 * parseWei reads an amount of wei: an integer (`1000000000`) or a decimal with a unit
 * (`1gwei`, `0.5gwei`, `1ether`, `7wei`) that comes to a whole number of wei.
 */
export function parseWei(raw: unknown): bigint {
  const expected = 'expected an amount in wei such as 1000000000 or 1gwei'
  if (typeof raw === 'bigint') {
    if (raw < 0n) throw new ValueProblem(expected)
    return raw
  }
  if (typeof raw !== 'string') throw new ValueProblem(expected)
  const m = /^([0-9]+)(?:\.([0-9]+))?(wei|gwei|ether)?$/.exec(raw)
  if (!m) throw new ValueProblem(expected)
  const decimals = WEI_UNITS[m[3] ?? 'wei'] ?? 0
  const fraction = (m[2] ?? '').replace(/0+$/, '')
  if (fraction.length > decimals) throw new ValueProblem(`${expected} (not a whole number of wei)`)
  return BigInt(m[1] ?? '0') * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')
}

export function parseString(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0) throw new ValueProblem('expected a non-empty string')
  return raw
}

export function parseEnum<T extends string>(raw: unknown, accepted: readonly T[]): T {
  if (typeof raw === 'string' && (accepted as readonly string[]).includes(raw)) return raw as T
  throw new ValueProblem(`expected one of: ${accepted.join(', ')}`)
}

/** parseList reads `a,b,c` (flags) or a TOML array of strings; items are trimmed and must not be empty. */
export function parseList(raw: unknown, what = 'strings'): string[] {
  let items: unknown[]
  if (typeof raw === 'string') items = raw === '' ? [] : raw.split(',').map((s) => s.trim())
  else if (Array.isArray(raw)) items = raw
  else throw new ValueProblem(`expected a list of ${what}`)
  for (const item of items) {
    if (typeof item !== 'string' || item === '')
      throw new ValueProblem(`expected a list of ${what} (empty or non-string item)`)
  }
  return items as string[]
}

export function parseNamespaces(raw: unknown): RpcNamespace[] {
  const accepted = RPC_NAMESPACES.join(', ')
  const names = parseList(raw, `namespaces (${accepted})`)
  if (names.length === 0) throw new ValueProblem(`expected at least one namespace (accepted: ${accepted})`)
  const seen = new Set<string>()
  for (const name of names) {
    if (!(RPC_NAMESPACES as readonly string[]).includes(name)) {
      throw new ValueProblem(`unknown namespace ${JSON.stringify(name)} (accepted: ${accepted})`, 'specific')
    }
    if (seen.has(name)) throw new ValueProblem(`namespace ${JSON.stringify(name)} listed twice`, 'specific')
    seen.add(name)
  }
  return names as RpcNamespace[]
}

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/

/** parseHost accepts an IPv4/IPv6 address (bare, no brackets) or a host name. */
export function parseHost(raw: unknown): string {
  if (typeof raw === 'string' && (isIP(raw) !== 0 || HOST_NAME.test(raw))) return raw
  throw new ValueProblem('expected an IP address or host name, e.g. 127.0.0.1, 0.0.0.0, ::1 or localhost')
}

/** parseUrl accepts an absolute URL with one of `schemes` (e.g. `https:`). */
export function parseUrl(raw: unknown, schemes: readonly string[]): string {
  const expected = `expected a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`
  if (typeof raw !== 'string') throw new ValueProblem(expected)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ValueProblem(expected)
  }
  if (!schemes.includes(url.protocol) || url.host === '') throw new ValueProblem(expected)
  return raw
}

/** parseOrigins reads CORS origins: `*` or `scheme://host[:port]` each; an empty list sends no CORS headers. */
export function parseOrigins(raw: unknown): string[] {
  const origins = parseList(raw, 'origins')
  for (const origin of origins) {
    if (origin === '*') continue
    let ok = false
    try {
      ok = new URL(origin).origin === origin
    } catch {}
    if (!ok) {
      throw new ValueProblem(
        `${JSON.stringify(origin)} is not an origin (expected * or scheme://host[:port])`,
        'specific',
      )
    }
  }
  return origins
}

export function parseUrls(raw: unknown, schemes: readonly string[]): string[] {
  const urls = parseList(raw, 'URLs')
  for (const url of urls) {
    try {
      parseUrl(url, schemes)
    } catch (err) {
      throw new ValueProblem(`${JSON.stringify(url)}: ${(err as Error).message}`, 'specific')
    }
  }
  return urls
}

/** parseTokenSymbol: 1-11 letters or digits (what wallets display). */
export function parseTokenSymbol(raw: unknown): string {
  if (typeof raw === 'string' && /^[A-Za-z0-9]{1,11}$/.test(raw)) return raw
  throw new ValueProblem('expected 1-11 letters or digits')
}

/** parseBootnodes reads libp2p multiaddrs (`/ip4/1.2.3.4/tcp/30303/p2p/12D3…`). */
export function parseBootnodes(raw: unknown): string[] {
  const addrs = parseList(raw, 'multiaddrs')
  for (const addr of addrs) {
    if (!/^\/[a-z0-9]+\/\S+$/.test(addr)) {
      throw new ValueProblem(
        `${JSON.stringify(addr)} is not a multiaddr (expected /ip4/HOST/tcp/PORT/p2p/PEER_ID)`,
        'specific',
      )
    }
  }
  return addrs
}

/** parseProxies reads IP addresses and CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`). */
export function parseProxies(raw: unknown): string[] {
  const list = parseList(raw, 'IP addresses or CIDR ranges')
  for (const item of list) {
    const [ip, bits, more] = item.split('/')
    const family = isIP(ip ?? '')
    const maxBits = family === 4 ? 32 : 128
    const bitsOk = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= maxBits)
    if (family === 0 || !bitsOk || more !== undefined) {
      throw new ValueProblem(
        `${JSON.stringify(item)} is not an IP address or CIDR range (e.g. 127.0.0.1, 10.0.0.0/8)`,
        'specific',
      )
    }
  }
  return list
}

/** Longest virtual host name (DNS). */
const MAX_HOST_NAME_LENGTH = 253
const HOST_LABELS = /^[a-z0-9*](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

/** parseVhosts reads host names for the Host header check: `*`, `localhost`, `rpc.example.org`, `*.example.org`. */
export function parseVhosts(raw: unknown): string[] {
  const list = parseList(raw, 'host names').map((h) => h.toLowerCase())
  for (const host of list) {
    if (host === '*') continue
    if (host.length > MAX_HOST_NAME_LENGTH || !HOST_LABELS.test(host)) {
      throw new ValueProblem(
        `${JSON.stringify(host)} is not a host name (e.g. localhost, rpc.example.org, *)`,
        'specific',
      )
    }
  }
  return list
}
