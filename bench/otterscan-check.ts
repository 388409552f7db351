/**
 * The real Otterscan web app against an ibex dev node, in headless Chromium (issue 21: "Otterscan
 * pointed at an ibex node works"). Not part of `npm test` or CI: it needs an Otterscan build, which
 * CI cannot fetch.
 *
 *   npm run otterscan:check -- /path/to/otterscan/dist   (= npm run build && node dist/bench/otterscan-check.js …)
 *   (or OTTERSCAN_DIST=/path/to/otterscan/dist; README "Otterscan" says how to build it)
 *
 *   1. starts an ibex dev node (1 s blocks; the dev preset serves ots and trace) and makes activity: plain transfers (more
 *      than a history page of one sender), an ERC-20 deploy and transfers, a router contract that
 *      calls the token and forwards value, CREATE + CREATE2 + SELFDESTRUCT from a contract, a
 *      transfer that reverts with a reason and one that reverts inside a nested call, a block with
 *      several transactions;
 *   2. serves the Otterscan build from a node:http server (SPA fallback to index.html, its
 *      /config.json pointing at the node, no third-party lookups: chainInfo given, no assets
 *      server, Sourcify at a local stub answering 404 = "not verified");
 *   3. opens each page in Chromium and waits for what it must show; every console error, uncaught
 *      exception, JSON-RPC error answer and request to a third-party origin is recorded per page;
 *   4. prints one PASS/FAIL line per page with its problems, writes 1280x800 screenshots of one page of each kind to
 *      --out (default docs/otterscan/), stops the node and the server it started, exits 1 on a FAIL.
 *
 * --keep leaves node and server running after the check (Ctrl-C stops them) to look around by hand.
 * --ws gives Otterscan the node's ws:// URL (ethers' WebSocketProvider, no batches) instead of http://.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, resolve } from 'node:path'
import type { Page, Request } from 'playwright-core'
import {
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  maxUint256,
  parseEther,
  parseGwei,
  toEventSelector,
  toFunctionSelector,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Browser, launchBrowser } from '../test/explorer/browser.js'
import { compileFile, REPO_ROOT } from '../test/helpers/compile.js'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from '../test/helpers/dev.js'
import { cleanupNodes, type IbexNode, rawRpc, rpc, startNode, waitForReceipt } from '../test/helpers/node.js'

/** Screenshot size: small enough to commit. */
const VIEWPORT = { width: 1280, height: 800 }
/** How long a page may take to show what it must. */
const PAGE_TIMEOUT_MS = 20_000
/** Plain transfers of the busy sender: more than one Otterscan history page (25). */
const BUSY_SENDER_TRANSFERS = 30
/** Transactions of the busy block, one per sender. */
const BUSY_BLOCK_TXS = 6
const TOKEN_SUPPLY = 1_000_000n * 10n ** 18n

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any

interface Options {
  dist: string
  out: string
  keep: boolean
  /** Point Otterscan at the node's ws:// URL (ethers' WebSocketProvider) instead of http://. */
  ws: boolean
}

function parseArgs(argv: string[]): Options {
  let dist = process.env.OTTERSCAN_DIST
  let out = join(REPO_ROOT, 'docs', 'otterscan')
  let keep = false
  let ws = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string
    if (a === '--out') out = resolve(argv[++i] as string)
    else if (a === '--keep') keep = true
    else if (a === '--ws') ws = true
    else if (a === '--help' || a === '-h') {
      console.log('usage: node dist/bench/otterscan-check.js [OTTERSCAN_DIST] [--out DIR] [--keep] [--ws]')
      process.exit(0)
    } else dist = a
  }
  if (dist === undefined)
    throw new Error('give the path of a built Otterscan (its dist/ folder) as argument or OTTERSCAN_DIST')
  dist = resolve(dist)
  if (!existsSync(join(dist, 'index.html')))
    throw new Error(`${dist}/index.html is missing: build Otterscan first (npx vite build)`)
  return { dist, out, keep, ws }
}

// ---------------------------------------------------------------- activity

/** What the activity left, for the pages to show. */
interface Activity {
  token: Hex
  router: Hex
  tokenDeploy: Json
  routerDeploy: Json
  routed: Json
  spawn: Json
  /** The CREATE2 child: created by the router (an internal creation) and kept. */
  child: Hex
  revert: Json
  nestedRevert: Json
  busySender: Hex
  /** Paid by the router inside `routed`: an address only an internal call touched in that transaction. */
  routedTo: Hex
  /** The busy sender's plain transfers, oldest first. */
  busyHashes: Hex[]
  /** Every transaction of the busy sender, by nonce. */
  senderHashes: Hex[]
  /** A block with several transactions: number, hash, its transactions in block order. */
  busyBlock: number
  busyBlockHash: Hex
  busyBlockHashes: Hex[]
}

class Sender {
  readonly #nonces = new Map<string, number>()
  constructor(readonly url: string) {}

  async sign(i: number, to: Hex | null, data: Hex, value = 0n, gas = 500_000n): Promise<Hex> {
    const account = privateKeyToAccount(DEV_ACCOUNTS[i]?.privateKey as Hex)
    const nonce =
      this.#nonces.get(account.address) ??
      Number(await rpc(this.url, 'eth_getTransactionCount', [account.address, 'pending']))
    this.#nonces.set(account.address, nonce + 1)
    return account.signTransaction({
      chainId: DEV_CHAIN_ID,
      type: 'eip1559',
      to,
      data,
      value,
      gas,
      nonce,
      maxFeePerGas: parseGwei('50'),
      maxPriorityFeePerGas: parseGwei('1'),
    })
  }

  /** Sends raw transactions in one JSON-RPC batch (they reach the pool together) and waits for their receipts. */
  async all(raws: Hex[]): Promise<Json[]> {
    const body = raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }))
    const { json } = await rawRpc(this.url, JSON.stringify(body))
    const hashes = (json as Json[]).map((r) => {
      if (r.error !== undefined) throw new Error(`eth_sendRawTransaction: ${r.error.message}`)
      return r.result as Hex
    })
    return Promise.all(hashes.map((h) => waitForReceipt(this.url, h, 30_000)))
  }

  async one(i: number, to: Hex | null, data: Hex, value = 0n, gas = 500_000n): Promise<Json> {
    const [receipt] = await this.all([await this.sign(i, to, data, value, gas)])
    return receipt
  }
}

function expectStatus(r: Json, status: '0x1' | '0x0', what: string): Json {
  if (r.status !== status)
    throw new Error(`${what}: transaction ${r.transactionHash} has status ${r.status}, want ${status}`)
  return r
}

async function makeActivity(url: string): Promise<Activity> {
  const c = compileFile('../bench/otterscan/Activity.sol')
  const { CheckToken: token, Router: router } = c as Record<string, NonNullable<(typeof c)[string]>>
  const s = new Sender(url)
  const dev = (i: number) => DEV_ACCOUNTS[i]?.address as Hex
  const call = (abi: Json, functionName: string, args: unknown[]) => encodeFunctionData({ abi, functionName, args })

  const tokenDeploy = expectStatus(
    await s.one(
      0,
      null,
      encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [TOKEN_SUPPLY] }),
      0n,
      2_000_000n,
    ),
    '0x1',
    'token deploy',
  )
  const tokenAddress = tokenDeploy.contractAddress as Hex
  const routerDeploy = expectStatus(await s.one(0, null, router.bytecode, 0n, 2_000_000n), '0x1', 'router deploy')
  const routerAddress = routerDeploy.contractAddress as Hex
  const approve = expectStatus(
    await s.one(0, tokenAddress, call(token.abi, 'approve', [routerAddress, maxUint256])),
    '0x1',
    'approve',
  )
  const tokenTransfer = expectStatus(
    await s.one(0, tokenAddress, call(token.abi, 'transfer', [dev(3), 1234n * 10n ** 18n])),
    '0x1',
    'token transfer',
  )
  const routed = expectStatus(
    await s.one(0, routerAddress, call(router.abi, 'route', [tokenAddress, dev(5), 10n * 10n ** 18n]), parseEther('1')),
    '0x1',
    'route',
  )
  const spawn = expectStatus(
    await s.one(0, routerAddress, call(router.abi, 'spawn', [`0x${'5a'.repeat(32)}`]), parseEther('0.5'), 2_000_000n),
    '0x1',
    'spawn',
  )
  const created = (spawn.logs as Json[]).filter((l) => l.address.toLowerCase() === routerAddress.toLowerCase())
  const child = `0x${(created[1]?.topics[1] as string).slice(26)}` as Hex
  // dev 4 holds no tokens: "CheckToken: balance too low"; dev 1 gave the router no allowance: the
  // token's "allowance too low" comes back through the router
  const revert = expectStatus(await s.one(4, tokenAddress, call(token.abi, 'transfer', [dev(3), 1n])), '0x0', 'revert')
  const nestedRevert = expectStatus(
    await s.one(1, routerAddress, call(router.abi, 'route', [tokenAddress, dev(5), 1n])),
    '0x0',
    'nested revert',
  )
  // a block with several transactions, one per sender
  const raws: Hex[] = []
  for (let i = 0; i < BUSY_BLOCK_TXS; i++)
    raws.push(await s.sign(2 + i, dev(9), '0x', parseEther('0.01') * BigInt(i + 1), 21_000n))
  const busy = await s.all(raws)
  const blocks = new Set(busy.map((r) => r.blockNumber))
  if (blocks.size !== 1)
    throw new Error(`the ${BUSY_BLOCK_TXS} transfers meant for one block landed in ${blocks.size} blocks`)
  const block = await rpc(url, 'eth_getBlockByNumber', [(busy[0] as Json).blockNumber, false])
  // the busy sender: more transfers than one history page, a few per block
  const busyHashes: Hex[] = []
  for (let sent = 0; sent < BUSY_SENDER_TRANSFERS; ) {
    const batch: Hex[] = []
    for (let k = 0; k < 4 && sent < BUSY_SENDER_TRANSFERS; k++, sent++)
      batch.push(await s.sign(0, dev(7), '0x', 1_000n + BigInt(sent), 21_000n))
    for (const r of await s.all(batch)) busyHashes.push(r.transactionHash)
  }
  return {
    token: tokenAddress,
    router: routerAddress,
    tokenDeploy,
    routerDeploy,
    routed,
    spawn,
    child,
    revert,
    nestedRevert,
    busySender: dev(0),
    routedTo: dev(5),
    busyHashes,
    senderHashes: [tokenDeploy, routerDeploy, approve, tokenTransfer, routed, spawn]
      .map((r) => r.transactionHash)
      .concat(busyHashes),
    busyBlock: Number(block.number),
    busyBlockHash: block.hash,
    busyBlockHashes: block.transactions,
  }
}

// ---------------------------------------------------------------- static server

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
}

/**
 * The 4-byte and topic0 signatures of the activity's contracts, as Otterscan's assets server serves
 * them (`/signatures/<4 bytes hex>`, `/topic0/<32 bytes hex>`, the text signature): the stub serves
 * only these, so method names and log decoding show without any third-party data.
 */
function signatureAssets(abis: Json[][]): Map<string, string> {
  const assets = new Map<string, string>()
  for (const item of abis.flat()) {
    if (item.type !== 'function' && item.type !== 'event') continue
    const types = (item.inputs as Json[]).map((i) => i.type)
    const signature = `${item.name}(${types.join(',')})`
    if (item.type === 'function') assets.set(`/signatures/${toFunctionSelector(signature).slice(2)}`, signature)
    else {
      // the topic0 database marks indexed parameters: Otterscan decodes the log with that fragment
      const marked = (item.inputs as Json[]).map((i) => `${i.type}${i.indexed ? ' indexed' : ''}`)
      assets.set(`/topic0/${toEventSelector(signature).slice(2)}`, `${item.name}(${marked.join(',')})`)
    }
  }
  return assets
}

/** Otterscan's config.json for the node: chain info given, assets and Sourcify at local stubs, no price oracles. */
function otterscanConfig(nodeUrl: string, origin: string): Json {
  return {
    erigonURL: nodeUrl,
    assetsURLPrefix: `${origin}/assets-stub`,
    chainInfo: { name: 'ibex dev', faucets: [], nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 } },
    branding: { siteName: 'Otterscan on ibex', hideAnnouncements: true },
    sourcify: { sources: { 'local stub': { url: `${origin}/sourcify-stub`, backendFormat: 'SourcifyAPIV2' } } },
  }
}

/** Serves `dist` at the origin root, index.html for every unknown path (SPA routes), `/config.json` from `config`. */
async function serveOtterscan(
  dist: string,
  config: (origin: string) => Json,
  assets: Map<string, string>,
): Promise<{ server: Server; origin: string }> {
  let origin = ''
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    if (path === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(config(origin)))
      return
    }
    if (path.startsWith('/assets-stub/')) {
      const text = assets.get(path.slice('/assets-stub'.length))
      res.writeHead(text === undefined ? 404 : 200, {
        'content-type': 'text/plain',
        'access-control-allow-origin': '*',
      })
      res.end(text ?? 'not found')
      return
    }
    if (path.startsWith('/sourcify-stub/')) {
      // Sourcify's answer for a contract nobody verified
      res.writeHead(404, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
      res.end('{"customCode":"not_found","message":"Contract not found"}')
      return
    }
    const file = normalize(join(dist, path))
    const inside = file.startsWith(dist) && existsSync(file) && statSync(file).isFile()
    const target = inside ? file : join(dist, 'index.html')
    res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(target)] ?? 'application/octet-stream' })
    res.end(readFileSync(target))
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { server, origin }
}

// ---------------------------------------------------------------- browser

/** One JSON-RPC call the page made, with the error it got, if any. */
interface RpcCall {
  method: string
  params: unknown
  error?: { code: number; message: string }
}

/** Problems seen while a page was open. */
interface PageLog {
  console: string[]
  rpcErrors: string[]
  failedRequests: string[]
  calls: RpcCall[]
  /** What Otterscan asks of every node and copes with: not held against the page, counted. */
  expected: string[]
}

function newLog(): PageLog {
  return { console: [], rpcErrors: [], failedRequests: [], calls: [], expected: [] }
}

/** ERC-20 name(), symbol(), decimals(): Otterscan probes every address it shows; a non-token reverts. */
const TOKEN_PROBES = new Set(['0x06fdde03', '0x95d89b41', '0x313ce567'])

/** An error every node gives Otterscan the same way, which it handles: a lookup of an unverified contract, a token probe of a non-token. */
function isExpected(kind: 'console' | 'rpc', text: string, call?: { method: string; params: Json }): boolean {
  if (kind === 'console')
    return /status of 404 .* @ \S+\/(sourcify|assets)-stub\/|does not exist in topic0 DB/.test(text)
  return (
    call?.method === 'eth_call' && TOKEN_PROBES.has(String(call.params?.[0]?.data)) && /execution reverted/.test(text)
  )
}

/** Files the calls of one JSON-RPC exchange (a single call or a batch) and the errors answered into `log`. */
function record(log: PageLog, sent: Json, got: Json): void {
  const calls = Array.isArray(sent) ? sent : [sent]
  const answers = new Map<unknown, Json>((Array.isArray(got) ? got : [got]).map((a: Json) => [a?.id, a]))
  for (const c of calls) {
    const a = answers.get(c.id)
    const entry: RpcCall = { method: c.method, params: c.params }
    if (a === undefined) log.rpcErrors.push(`${c.method}: no answer in the batch`)
    else if (a.error !== undefined) {
      entry.error = a.error
      const text = `${c.method}(${JSON.stringify(c.params).slice(0, 120)}) → ${a.error.code} ${a.error.message}`
      ;(isExpected('rpc', a.error.message, c) ? log.expected : log.rpcErrors).push(text)
    }
    log.calls.push(entry)
  }
}

/**
 * Records console errors, JSON-RPC errors and failed requests of `page` into `current()`: HTTP
 * exchanges with the node as request and response pairs, WebSocket ones (an erigonURL of ws://)
 * by matching each answer frame's id with the call frame sent.
 */
function watch(page: Page, nodeOrigin: string, current: () => PageLog): void {
  page.on('console', (m) => {
    if (m.type() !== 'error') return
    const text = `${m.text()}${m.location().url ? ` @ ${m.location().url}` : ''}`
    ;(isExpected('console', text) ? current().expected : current().console).push(text)
  })
  page.on('pageerror', (e) => current().console.push(`uncaught: ${e.message}`))
  page.on('requestfailed', (r: Request) => {
    const text = `${r.method()} ${r.url()}: ${r.failure()?.errorText}`
    // net::ERR_ABORTED: the browser dropped it (the page navigated on, a poll was cancelled), no answer to judge
    ;(r.failure()?.errorText === 'net::ERR_ABORTED' ? current().expected : current().failedRequests).push(text)
  })
  page.on('response', async (response) => {
    const request = response.request()
    if (new URL(request.url()).origin !== nodeOrigin || request.method() !== 'POST') return
    const log = current()
    let sent: Json
    let got: Json
    try {
      sent = JSON.parse(request.postData() ?? 'null')
      got = await response.json()
    } catch (e) {
      // the page navigated on before the answer was read: its body is gone, nothing to judge
      if (/navigated away|No resource with given identifier/.test((e as Error).message)) return
      log.rpcErrors.push(`unreadable JSON-RPC exchange (HTTP ${response.status()}): ${(e as Error).message}`)
      return
    }
    record(log, sent, got)
  })
  page.on('websocket', (ws) => {
    const pending = new Map<unknown, Json>()
    const text = (payload: string | Buffer) => (typeof payload === 'string' ? payload : payload.toString('utf8'))
    ws.on('framesent', ({ payload }) => {
      try {
        const sent = JSON.parse(text(payload))
        for (const c of Array.isArray(sent) ? sent : [sent]) pending.set(c.id, c)
      } catch {
        // not JSON-RPC
      }
    })
    ws.on('framereceived', ({ payload }) => {
      let got: Json
      try {
        got = JSON.parse(text(payload))
      } catch {
        return
      }
      for (const a of Array.isArray(got) ? got : [got]) {
        const c = pending.get(a?.id)
        if (c === undefined) continue // a subscription notification
        pending.delete(a.id)
        record(current(), c, a)
      }
    })
  })
}

interface Check {
  /** Name of the page (and of its screenshot). */
  name: string
  /** Otterscan path to open, or an action from the previous page. */
  path?: string
  act?: (page: Page) => Promise<void>
  /** Texts the page must show (each waited for). */
  texts: (string | RegExp)[]
  /** JSON-RPC methods that must have been called without error while the page was open. */
  methods?: string[]
  /** Further checks of the rendered page; a thrown error fails the page. */
  verify?: (page: Page) => Promise<void>
  /** Saved as <out>/<name>.png (the committed set: one page of each kind). */
  shot?: boolean
  /** A gap ibex knows of: the page is expected to fail for this reason (KNOWN, not FAIL; PASS says it is gone). */
  known?: string
}

interface Result {
  name: string
  ok: boolean
  problems: string[]
  log: PageLog
}

async function waitForText(page: Page, text: string | RegExp): Promise<void> {
  await page.getByText(text).first().waitFor({ state: 'visible', timeout: PAGE_TIMEOUT_MS })
}

async function runCheck(page: Page, origin: string, check: Check, log: PageLog, out: string): Promise<Result> {
  const problems: string[] = []
  try {
    if (check.path !== undefined) await page.goto(`${origin}${check.path}`)
    if (check.act !== undefined) await check.act(page)
    for (const t of check.texts) {
      try {
        await waitForText(page, t)
      } catch {
        problems.push(`does not show ${t}`)
      }
    }
    if (check.verify !== undefined) await check.verify(page)
    // let late calls of the page land before it is judged
    await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined)
  } catch (e) {
    problems.push((e as Error).message.split('\n')[0] as string)
  }
  for (const m of check.methods ?? []) {
    if (!log.calls.some((c) => c.method === m)) problems.push(`never called ${m}`)
  }
  if (check.shot === true)
    await page
      .screenshot({ path: join(out, `${check.name}.png`) })
      .catch((e) => problems.push(`screenshot: ${(e as Error).message}`))
  problems.push(...log.rpcErrors.map((e) => `rpc error: ${e}`))
  problems.push(...log.console.map((e) => `console: ${e}`))
  problems.push(...log.failedRequests.map((e) => `request failed: ${e}`))
  return { name: check.name, ok: problems.length === 0, problems, log }
}

/** The transaction hashes a page lists (Otterscan marks each link `data-test="tx-hash"`), in page order. */
async function listedHashes(page: Page): Promise<string[]> {
  return (await page.locator('[data-test="tx-hash"]').allInnerTexts()).map((t) => t.trim().toLowerCase())
}

function expectEqual(got: unknown, want: unknown, what: string): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
  }
}

/** Clicks the link to `href` and waits for the URL to match `url`. */
async function follow(page: Page, href: string, url: RegExp): Promise<void> {
  await page.locator(`a[href="${href}"]`).first().click({ timeout: PAGE_TIMEOUT_MS })
  await page.waitForURL(url, { timeout: PAGE_TIMEOUT_MS })
}

/** The history page shown once it differs from `previous` (the rows of the page before a click). */
async function historyPage(page: Page, previous: string[] = []): Promise<string[]> {
  const deadline = Date.now() + PAGE_TIMEOUT_MS
  for (;;) {
    const listed = await listedHashes(page)
    if (listed.length > 0 && listed[0] !== previous[0]) {
      // rows render as their data lands: read again once the page is quiet
      await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined)
      return listedHashes(page)
    }
    if (Date.now() > deadline) throw new Error(`the history page did not change from ${previous[0]}`)
    await page.waitForTimeout(200)
  }
}

/** Clicks the history page button `nav` ("next", "prev", "first", "last") and reads the page it leads to. */
async function historyNav(page: Page, nav: string, previous: string[]): Promise<string[]> {
  await page.locator(`[data-test="nav-${nav}"]`).first().click({ timeout: PAGE_TIMEOUT_MS })
  return historyPage(page, previous)
}

/** The address history pages Otterscan shows from the newest on, clicking ">" (older) to the end. */
async function historyPages(page: Page): Promise<string[][]> {
  const pages: string[][] = [await historyPage(page)]
  for (let i = 0; i < 10; i++) {
    if ((await page.locator('[data-test="nav-next"]').count()) === 0) return pages
    pages.push(await historyNav(page, 'next', pages.at(-1) as string[]))
  }
  throw new Error('more than 10 history pages')
}

function checks(a: Activity): Check[] {
  const tx = (r: Json) => `/tx/${r.transactionHash}`
  const lower = (h: string) => h.toLowerCase()
  // the busy sender's transactions by nonce (it sent every one of its transactions in makeActivity)
  const byNonce = a.senderHashes.map(lower)
  const newestFirst = [...byNonce].reverse()
  const busyNonce = byNonce.indexOf(lower(a.busyHashes[3] as string))
  return [
    {
      name: 'home',
      shot: true,
      path: '/',
      texts: [/Otterscan on ibex/i, /Latest block/i],
      methods: ['eth_blockNumber', 'erigon_getHeaderByNumber', 'ots_getApiLevel'],
    },
    {
      name: 'block',
      shot: true,
      path: `/block/${a.busyBlock}`,
      texts: [`${a.busyBlock}`, /6 transactions in this block/, /Gas Used/],
      methods: ['ots_getBlockDetails'],
    },
    {
      name: 'block-previous',
      act: (page) => follow(page, `/block/${a.busyBlock - 1}`, new RegExp(`/block/${a.busyBlock - 1}$`)),
      texts: [new RegExp(`#${a.busyBlock - 1}`)],
    },
    {
      name: 'block-by-hash',
      path: `/block/${a.busyBlockHash}`,
      texts: [a.busyBlockHash, /6 transactions in this block/],
      methods: ['ots_getBlockDetailsByHash'],
    },
    {
      name: 'block-transactions',
      shot: true,
      path: `/block/${a.busyBlock}/txs`,
      texts: [/A total of 6 transactions found/],
      methods: ['ots_getBlockTransactions'],
      verify: async (page) => {
        await page.locator('[data-test="tx-hash"]').nth(5).waitFor({ timeout: PAGE_TIMEOUT_MS })
        // newest first: Otterscan reverses the page Erigon (and ibex) give in block order
        expectEqual(await listedHashes(page), [...a.busyBlockHashes].reverse().map(lower), 'transactions of the block')
      },
    },
    {
      name: 'block-tx-by-index',
      path: `/block/${a.busyBlock}/tx/2`,
      texts: [/Transaction Details/],
      methods: ['ots_getBlockTransactions'],
      verify: async (page) => {
        // Otterscan asks for the page holding index 2 counted from the block's end (Erigon's paging)
        await page.waitForURL(new RegExp(`/tx/${a.busyBlockHashes[2]}$`, 'i'), { timeout: PAGE_TIMEOUT_MS })
      },
    },
    {
      name: 'tx-overview',
      shot: true,
      path: tx(a.routed),
      texts: [
        a.routed.transactionHash,
        /Success/,
        /TRANSFER/,
        /Tokens Transferred \(1\)/,
        /Otter Check Token \(OTC\)/,
        /route/,
      ],
      methods: ['eth_getTransactionByHash', 'eth_getTransactionReceipt', 'ots_getInternalOperations'],
    },
    {
      name: 'tx-logs',
      shot: true,
      path: `${tx(a.routed)}/logs`,
      texts: [/Logs \(2\)/, /Transfer\(address indexed/, /Routed\(address indexed/],
    },
    {
      name: 'tx-trace',
      shot: true,
      path: `${tx(a.routed)}/trace`,
      texts: [/transferFrom/, /<fallback>/],
      methods: ['ots_traceTransaction'],
    },
    {
      name: 'tx-state-diff',
      shot: true,
      path: `${tx(a.routed)}/statediff`,
      // the router: the token it called and the value it forwarded leave its own balance and storage as they were
      texts: [/storage/, /Otter Check Token/, new RegExp(a.routedTo, 'i')],
      methods: ['trace_replayTransaction'],
    },
    {
      name: 'tx-internal-ops',
      shot: true,
      path: tx(a.spawn),
      texts: [/CREATE/, /SELF DESTRUCT/, new RegExp(a.child, 'i')],
      methods: ['ots_getInternalOperations'],
      verify: async (page) => {
        const ops = await page.getByText(/^\s*CREATE\s*$/).count()
        if (ops !== 2) throw new Error(`shows ${ops} CREATE operations, want 2 (CREATE and CREATE2)`)
      },
    },
    {
      name: 'tx-create-trace',
      path: `${tx(a.spawn)}/trace`,
      texts: [/^CREATE$/, /^CREATE2$/, /^SELFDESTRUCT$/],
      methods: ['ots_traceTransaction'],
    },
    { name: 'tx-contract-creation', path: tx(a.tokenDeploy), texts: [/Success/, /Otter Check Token/] },
    {
      name: 'tx-revert',
      shot: true,
      path: tx(a.revert),
      texts: [/Fail with revert message/, "'CheckToken: balance too low'"],
      methods: ['ots_getTransactionError'],
    },
    {
      name: 'tx-nested-revert',
      shot: true,
      path: tx(a.nestedRevert),
      texts: [/Fail with revert message/, "'CheckToken: allowance too low'"],
      methods: ['ots_getTransactionError'],
    },
    {
      name: 'tx-revert-trace',
      path: tx(a.nestedRevert),
      act: async (page) => {
        await page.getByText('Show Revert Trace').click({ timeout: PAGE_TIMEOUT_MS })
      },
      texts: [/Revert trace:/, new RegExp(a.token, 'i')],
      methods: ['trace_replayTransaction'],
      known: 'the revert trace needs trace_replayTransaction with vmTrace, which ibex does not serve (stateDiff only)',
    },
    {
      name: 'tx-nested-revert-trace',
      path: `${tx(a.nestedRevert)}/trace`,
      texts: [/transferFrom/],
      methods: ['ots_traceTransaction'],
    },
    {
      name: 'address',
      shot: true,
      path: `/address/${a.busySender}`,
      texts: [/Transactions sent:/, new RegExp(`^${byNonce.length}$`)],
      methods: ['ots_searchTransactionsBefore', 'eth_getTransactionCount'],
      verify: async (page) => {
        // every history page from the newest, by ">": all the sender's transactions, newest first, each once
        const pages = await historyPages(page)
        expectEqual(pages.flat(), newestFirst, `history over ${pages.length} pages`)
        if (pages.length < 2)
          throw new Error(`history fits one page (${pages[0]?.length} transactions): paging not shown`)
      },
    },
    {
      name: 'address-first',
      act: async (page) => {
        // from the last page ">" led to, back to the newest by "First"
        const shown = await historyNav(page, 'first', await listedHashes(page))
        expectEqual(shown, newestFirst.slice(0, shown.length), 'first page')
      },
      texts: [],
    },
    {
      name: 'address-last',
      act: async (page) => {
        const shown = await historyNav(page, 'last', await listedHashes(page))
        // the oldest transactions, newest first, down to the first the sender made
        expectEqual(shown, newestFirst.slice(newestFirst.length - shown.length), 'last page')
        if ((await page.locator('[data-test="nav-next"]').count()) !== 0)
          throw new Error('">" is enabled on the last page')
      },
      texts: [],
      methods: ['ots_searchTransactionsAfter'],
    },
    {
      name: 'address-previous',
      act: async (page) => {
        const last = await listedHashes(page)
        const shown = await historyNav(page, 'prev', last)
        // the newer transactions right before the last page
        const end = newestFirst.length - last.length
        expectEqual(shown, newestFirst.slice(Math.max(0, end - shown.length), end), 'page before the last')
      },
      texts: [],
    },
    {
      name: 'address-internal',
      path: `/address/${a.routedTo}`,
      texts: [a.routed.transactionHash],
      methods: ['ots_searchTransactionsBefore'],
    },
    {
      name: 'contract-code',
      path: `/address/${a.router}/contract`,
      texts: [/Bytecode|Contract/],
      methods: ['eth_getCode'],
    },
    {
      name: 'contract-creator',
      shot: true,
      path: `/address/${a.child}`,
      texts: [/Contract creator:/, a.spawn.transactionHash],
      methods: ['ots_getContractCreator', 'ots_hasCode'],
      verify: async (page) => {
        const row = await page.getByText('Contract creator:').locator('xpath=../..').innerText()
        if (!row.toLowerCase().includes(a.router.toLowerCase()))
          throw new Error(`creator row "${row}" does not name the router ${a.router}`)
      },
    },
    {
      name: 'contract-creator-eoa',
      path: `/address/${a.token}`,
      texts: [/Contract creator:/, a.tokenDeploy.transactionHash],
      methods: ['ots_getContractCreator'],
    },
    {
      name: 'nonce',
      shot: true,
      path: `/address/${a.busySender}?nonce=${busyNonce}`,
      texts: [/Transaction Details/],
      methods: ['ots_getTransactionBySenderAndNonce'],
      verify: async (page) => {
        await page.waitForURL(new RegExp(`/tx/${byNonce[busyNonce]}$`, 'i'), { timeout: PAGE_TIMEOUT_MS })
      },
    },
    {
      name: 'nonce-next',
      act: (page) =>
        follow(
          page,
          `/address/${a.busySender}?nonce=${busyNonce + 1}`,
          new RegExp(`/tx/${byNonce[busyNonce + 1]}$`, 'i'),
        ),
      texts: [/Transaction Details/],
    },
    {
      name: 'nonce-previous',
      act: async (page) => {
        await page
          .getByText(byNonce[busyNonce + 1] as string)
          .first()
          .waitFor({ timeout: PAGE_TIMEOUT_MS })
        await follow(page, `/address/${a.busySender}?nonce=${busyNonce}`, new RegExp(`/tx/${byNonce[busyNonce]}$`, 'i'))
      },
      texts: [/Transaction Details/],
    },
    {
      name: 'nonce-latest',
      act: async (page) => {
        await page
          .getByText(byNonce[busyNonce] as string)
          .first()
          .waitFor({ timeout: PAGE_TIMEOUT_MS })
        await follow(
          page,
          `/address/${a.busySender}?nonce=${byNonce.length - 1}`,
          new RegExp(`/tx/${byNonce.at(-1)}$`, 'i'),
        )
      },
      texts: [/Transaction Details/],
    },
    {
      name: 'block-genesis',
      path: '/block/0',
      texts: [/Block Height:/, /0 transactions in this block/],
      methods: ['ots_getBlockDetails'],
    },
    {
      name: 'live-blocks',
      path: '/special/liveBlocks',
      texts: [new RegExp(`${a.busyBlock}`)],
      methods: ['erigon_getHeaderByNumber'],
    },
    {
      name: 'search-tx',
      act: async (page) => {
        await page.goto(origin(page))
        const box = page.locator('[data-test="home-search-input"]')
        await box.fill(a.revert.transactionHash)
        await box.press('Enter')
        await page.waitForURL(new RegExp(`/tx/${a.revert.transactionHash}$`, 'i'), { timeout: PAGE_TIMEOUT_MS })
      },
      texts: [/CheckToken: balance too low/],
    },
    {
      name: 'search-block',
      act: async (page) => {
        await page.goto(origin(page))
        const box = page.locator('[data-test="home-search-input"]')
        await box.fill(String(a.busyBlock))
        await box.press('Enter')
        await page.waitForURL(new RegExp(`/block/${a.busyBlock}$`), { timeout: PAGE_TIMEOUT_MS })
      },
      texts: [/6 transactions in this block/],
    },
  ]
}

/** The origin of the page's current URL. */
const origin = (page: Page) => new URL(page.url()).origin

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2))
  mkdirSync(opts.out, { recursive: true })
  let node: IbexNode | undefined
  let server: Server | undefined
  let browser: Browser | undefined
  const stop = async () => {
    await browser?.close().catch(() => undefined)
    await new Promise((ok) => (server ? server.close(ok) : ok(undefined)))
    await cleanupNodes()
  }
  process.once('SIGINT', () => void stop().then(() => process.exit(130)))
  let keeping = false
  try {
    node = await startNode({ port: 'free', args: ['--block-time', '1s'] })
    console.log(`ibex dev node pid ${node.pid} at ${node.url}`)
    const activity = await makeActivity(node.url)
    console.log(`activity made: head ${Number(await rpc(node.url, 'eth_blockNumber'))}`)
    const nodeUrl = opts.ws ? node.url.replace(/^http/, 'ws') : node.url
    const c = compileFile('../bench/otterscan/Activity.sol')
    const assets = signatureAssets(Object.values(c).map((k) => k.abi))
    const served = await serveOtterscan(opts.dist, (origin) => otterscanConfig(nodeUrl, origin), assets)
    server = served.server
    console.log(`Otterscan (${opts.dist}) at ${served.origin}`)
    const nodeOrigin = new URL(node.url).origin
    browser = await launchBrowser(() => [served.origin, nodeOrigin, nodeOrigin.replace(/^http/, 'ws')])
    const page = browser.page
    await page.setViewportSize(VIEWPORT)
    let log = newLog()
    watch(page, nodeOrigin, () => log)
    const results: Result[] = []
    const only = process.env.OTTERSCAN_ONLY?.split(',')
    const checksRun = checks(activity).filter((c) => only === undefined || only.includes(c.name))
    for (const check of checksRun) {
      log = newLog()
      const r = await runCheck(page, served.origin, check, log, opts.out)
      results.push(r)
      const verdict = r.ok ? 'PASS' : check.known !== undefined ? 'KNOWN' : 'FAIL'
      console.log(
        `${verdict} ${r.name}${check.path ? ` (${check.path})` : ''}${check.known !== undefined ? ` — known gap: ${check.known}` : ''}`,
      )
      for (const p of r.problems) console.log(`     ${p}`)
      if (r.log.expected.length > 0)
        console.log(
          `     (${r.log.expected.length} expected: 404 of the Sourcify and assets stubs, ERC-20 probes of non-tokens, requests the browser dropped on navigating)`,
        )
      if (process.env.OTTERSCAN_DUMP === '1') {
        for (const e of r.log.expected) console.log(`     expected: ${e}`)
        console.log((await page.locator('body').innerText()).slice(0, 3000))
      }
    }
    if (browser.foreign.length > 0)
      console.log(`requests to third-party origins: ${[...new Set(browser.foreign)].join(', ')}`)
    const failed = results.filter((r, i) => !r.ok && checksRun[i]?.known === undefined).length
    const known = results.filter((r, i) => !r.ok && checksRun[i]?.known !== undefined).length
    console.log(
      `${results.length - failed - known}/${results.length} pages pass, ${known} known gap(s), ${failed} fail; screenshots in ${opts.out}`,
    )
    if (opts.keep) {
      keeping = true
      console.log('--keep: node and Otterscan stay up; Ctrl-C stops them')
      await new Promise(() => undefined)
    }
    process.exitCode = failed > 0 ? 1 : 0
  } finally {
    // an error before --keep's wait stops everything too
    if (!keeping) await stop()
  }
}

await main()
