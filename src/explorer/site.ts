/**
 * The built-in explorer's HTTP side: static pages on the JSON-RPC port, under `[explorer] path`.
 *
 *   GET /explorer            ──▶ 301 to /explorer/
 *   GET /explorer/           ──▶ index.html, `no-cache` (revalidated by ETag: a new node version is seen at once)
 *   GET /explorer/v/<build>/<file> ──▶ an asset of www/ (or known.json), `immutable` for a year when <build>
 *                                   is this build's hash (index.html names it), `no-cache` for any other
 *   GET /explorer/<anything else>  ──▶ 404
 *   every answer: a strict Content-Security-Policy (self only, no inline script or style), nosniff,
 *   no referrer, no framing; If-None-Match ▶ 304
 *
 * There is no write path: the pages are static and read everything through this port's own
 * JSON-RPC from the browser (same origin, POST to the page's own path), so JSON-RPC's rate limits,
 * page-size caps and namespaces apply to every query a page makes. The browser code lives in
 * `www/` (plain ES modules and CSS shipped with the package; no bundler). known.json is built
 * once at start: the DAO's contract names at their fixed addresses and the selectors and topics of
 * every ABI the pages decode (the DAO's from contracts/abi, ERC-20/721, a short common list).
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { keccak256 } from '../util/crypto.js'
import { PACKAGE_ROOT } from '../util/package.js'

/** Assets carry their build hash in the URL, so a browser may keep them for a year without asking again. */
export const ASSET_MAX_AGE_SECONDS = 31_536_000
/** Characters of the build hash in asset URLs. */
const BUILD_HASH_CHARS = 16

/**
 * The page's Content-Security-Policy: everything from this origin only (the JSON-RPC POSTs too), no
 * inline script or style, no plugins, no framing, no forms, no <base> rewrites.
 */
export const EXPLORER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** Headers on every explorer answer, name/value pairs. */
const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['Content-Security-Policy', EXPLORER_CSP],
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
]

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

/** The browser code, shipped as source (package.json `files` has src). */
export const EXPLORER_WWW_DIR = join(PACKAGE_ROOT, 'src', 'explorer', 'www')

interface Asset {
  body: Buffer
  type: string
  etag: string
}

export interface ExplorerSiteOptions {
  /** Mount path, starting and ending with `/` (`[explorer] path`). */
  path: string
  /** The network preset whose DAO addresses label contracts (`dev`, `testnet`, `mainnet`). */
  network: string
  /** Shown in the page header ([chain] name). */
  chainName: string
  /** The native token's symbol ([chain] token_symbol). */
  symbol: string
  /** Default EXPLORER_WWW_DIR. */
  wwwDir?: string
}

/** ExplorerSite serves the explorer's pages (http.ts StaticSite). */
export class ExplorerSite {
  readonly path: string
  /** Hash of every asset: the `<build>` of asset URLs. */
  readonly build: string
  private readonly index: Asset
  private readonly assets: Map<string, Asset>

  constructor(options: ExplorerSiteOptions) {
    this.path = options.path
    const dir = options.wwwDir ?? EXPLORER_WWW_DIR
    const files = new Map<string, Buffer>()
    for (const name of readdirSync(dir).sort()) {
      if (CONTENT_TYPES[extname(name)] !== undefined) files.set(name, readFileSync(join(dir, name)))
    }
    const known = { ...buildKnown(options.network), chainName: options.chainName, symbol: options.symbol }
    files.set('known.json', Buffer.from(JSON.stringify(known)))
    const template = files.get('index.html')
    if (template === undefined) throw new Error(`explorer: no index.html in ${dir}`)
    files.delete('index.html')
    const all = createHash('sha256')
    for (const [name, body] of files) all.update(name).update(body)
    this.build = all.digest('hex').slice(0, BUILD_HASH_CHARS)
    this.assets = new Map()
    for (const [name, body] of files) this.assets.set(name, asset(body, CONTENT_TYPES[extname(name)]))
    this.index = asset(Buffer.from(template.toString('utf8').replaceAll('%ASSETS%', `v/${this.build}/`)), CONTENT_TYPES['.html'])
  }

  /** StaticSite: answers a GET/HEAD under the mount path; false for any other path. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    const path = q === -1 ? url : url.slice(0, q)
    if (path === this.path.slice(0, -1)) {
      setSecurity(res)
      res.setHeader('Location', this.path)
      res.statusCode = 301
      res.end()
      return true
    }
    if (!path.startsWith(this.path)) return false
    const rest = path.slice(this.path.length)
    if (rest === '' || rest === 'index.html') {
      send(req, res, this.index, 'no-cache')
      return true
    }
    const m = /^v\/([0-9a-f]+)\/([A-Za-z0-9_-]+\.[a-z]+)$/.exec(rest)
    const found = m === null ? undefined : this.assets.get(m[2])
    if (m === null || found === undefined) {
      setSecurity(res)
      res.statusCode = 404
      res.setHeader('Content-Type', 'text/plain; charset=utf-8')
      res.end('404 page not found\n')
      return true
    }
    send(req, res, found, m[1] === this.build ? `public, max-age=${ASSET_MAX_AGE_SECONDS}, immutable` : 'no-cache')
    return true
  }
}

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

function setSecurity(res: ServerResponse): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value)
}

function send(req: IncomingMessage, res: ServerResponse, a: Asset, cacheControl: string): void {
  setSecurity(res)
  res.setHeader('Cache-Control', cacheControl)
  res.setHeader('ETag', a.etag)
  if (matches(req.headers['if-none-match'], a.etag)) {
    res.statusCode = 304
    res.end()
    return
  }
  res.statusCode = 200
  res.setHeader('Content-Type', a.type)
  res.setHeader('Content-Length', a.body.length)
  res.end(req.method === 'HEAD' ? undefined : a.body)
}

function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((t) => {
    const tag = t.trim()
    return tag === '*' || tag === etag || tag === `W/${etag}`
  })
}

// ---- known.json: names and ABIs the pages decode with ----

interface AbiParam {
  name?: string
  type: string
  indexed?: boolean
  components?: AbiParam[]
}
interface AbiEntry {
  type: string
  name?: string
  inputs?: AbiParam[]
  outputs?: AbiParam[]
  anonymous?: boolean
  stateMutability?: string
}

/** One decodable function, event or error: `id` is the 4-byte selector or the 32-byte topic. */
export interface KnownEntry {
  id: string
  kind: 'function' | 'event' | 'error'
  /** Where it was found (contract name, `ERC-20`…). */
  source: string
  signature: string
  inputs: AbiParam[]
  outputs?: AbiParam[]
  /** A function that reads only (view or pure): the address page offers to call it. */
  view?: boolean
}

export interface Known {
  network: string
  /** Lower-case address → DAO contract name. */
  labels: Record<string, string>
  /** Contract name → its address (as the DAO page needs them). */
  contracts: Record<string, string>
  entries: KnownEntry[]
}

const p = (type: string, name: string, indexed?: boolean): AbiParam => ({ type, name, indexed })
/** ERC-20 / ERC-721 events and calls: the same topic for Transfer/Approval, told apart by how many arguments are indexed. */
const STANDARD: readonly [string, AbiEntry][] = [
  ['ERC-20', { type: 'event', name: 'Transfer', inputs: [p('address', 'from', true), p('address', 'to', true), p('uint256', 'value', false)] }],
  ['ERC-20', { type: 'event', name: 'Approval', inputs: [p('address', 'owner', true), p('address', 'spender', true), p('uint256', 'value', false)] }],
  ['ERC-721', { type: 'event', name: 'Transfer', inputs: [p('address', 'from', true), p('address', 'to', true), p('uint256', 'tokenId', true)] }],
  ['ERC-721', { type: 'event', name: 'Approval', inputs: [p('address', 'owner', true), p('address', 'approved', true), p('uint256', 'tokenId', true)] }],
  ['ERC-721', { type: 'event', name: 'ApprovalForAll', inputs: [p('address', 'owner', true), p('address', 'operator', true), p('bool', 'approved', false)] }],
  ['ERC-20', { type: 'function', name: 'transfer', inputs: [p('address', 'to'), p('uint256', 'value')], outputs: [p('bool', '')] }],
  ['ERC-20', { type: 'function', name: 'transferFrom', inputs: [p('address', 'from'), p('address', 'to'), p('uint256', 'value')], outputs: [p('bool', '')] }],
  ['ERC-20', { type: 'function', name: 'approve', inputs: [p('address', 'spender'), p('uint256', 'value')], outputs: [p('bool', '')] }],
  ['ERC-721', { type: 'function', name: 'safeTransferFrom', inputs: [p('address', 'from'), p('address', 'to'), p('uint256', 'tokenId')] }],
  ['ERC-721', { type: 'function', name: 'safeTransferFrom', inputs: [p('address', 'from'), p('address', 'to'), p('uint256', 'tokenId'), p('bytes', 'data')] }],
  ['ERC-721', { type: 'function', name: 'setApprovalForAll', inputs: [p('address', 'operator'), p('bool', 'approved')] }],
  ['common', { type: 'function', name: 'deposit', inputs: [] }],
  ['common', { type: 'function', name: 'withdraw', inputs: [p('uint256', 'amount')] }],
  ['common', { type: 'function', name: 'multicall', inputs: [p('bytes[]', 'data')] }],
  ['common', { type: 'error', name: 'Error', inputs: [p('string', 'reason')] }],
  ['common', { type: 'error', name: 'Panic', inputs: [p('uint256', 'code')] }],
]

function canonicalType(param: AbiParam): string {
  if (param.type.startsWith('tuple')) {
    return `(${(param.components ?? []).map(canonicalType).join(',')})${param.type.slice('tuple'.length)}`
  }
  return param.type
}

function entryOf(source: string, e: AbiEntry): KnownEntry | undefined {
  if ((e.type !== 'function' && e.type !== 'event' && e.type !== 'error') || e.name === undefined) return undefined
  if (e.anonymous === true) return undefined
  const inputs = e.inputs ?? []
  const signature = `${e.name}(${inputs.map(canonicalType).join(',')})`
  const hash = Buffer.from(keccak256(Buffer.from(signature, 'utf8'))).toString('hex')
  return {
    id: `0x${e.type === 'event' ? hash : hash.slice(0, 8)}`,
    kind: e.type,
    source,
    signature,
    inputs,
    outputs: e.type === 'function' ? (e.outputs ?? []) : undefined,
    view: e.type === 'function' ? e.stateMutability === 'view' || e.stateMutability === 'pure' : undefined,
  }
}

/** buildKnown: the labels and ABI entries of known.json for `network`'s DAO addresses. */
export function buildKnown(network: string): Known {
  const entries: KnownEntry[] = []
  const seen = new Set<string>()
  const add = (entry: KnownEntry | undefined): void => {
    if (entry === undefined) return
    // the same signature from two contracts decodes the same; an event's indexed pattern tells ERC-20 from ERC-721
    const key = `${entry.id}/${entry.inputs.map((i) => (i.indexed === true ? 'i' : '-')).join('')}`
    if (seen.has(key)) return
    seen.add(key)
    entries.push(entry)
  }
  const abiDir = join(PACKAGE_ROOT, 'contracts', 'abi')
  for (const [source, e] of STANDARD) add(entryOf(source, e))
  if (existsSync(abiDir)) {
    for (const file of readdirSync(abiDir).sort()) {
      if (!file.endsWith('.json')) continue
      const parsed = JSON.parse(readFileSync(join(abiDir, file), 'utf8')) as AbiEntry[] | { abi: AbiEntry[] }
      const abi = Array.isArray(parsed) ? parsed : parsed.abi
      for (const e of abi) add(entryOf(file.slice(0, -'.json'.length), e))
    }
  }
  const labels: Record<string, string> = {}
  const contracts: Record<string, string> = {}
  const genesisFile = join(PACKAGE_ROOT, 'contracts', 'genesis', `${network}.json`)
  if (existsSync(genesisFile)) {
    const addresses = (JSON.parse(readFileSync(genesisFile, 'utf8')) as { addresses?: Record<string, string> }).addresses ?? {}
    for (const [name, address] of Object.entries(addresses)) {
      labels[address.toLowerCase()] = name
      contracts[name] = address.toLowerCase()
    }
  }
  return { network, labels, contracts, entries }
}
