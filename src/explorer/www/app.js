// The built-in explorer: a hash-routed page that reads everything through this node's own JSON-RPC
// (POST to the page's own path, same origin). Every query is bounded: lists are paged with a fixed
// page size, the home page reads a fixed number of blocks. Nothing here writes to the chain.
//
//   #/                      latest blocks and transactions (polled)
//   #/block/<n|hash>?page=  header, IBFT round and seals, proposer, checkpoint, transactions paged
//   #/tx/<hash>             status, fee, decoded input, logs, token transfers, internal operations, trace, revert reason
//   #/address/<addr>?before=|after=   balance, nonce, code, creator, history (ots_search*), paged
//   #/validators            validators_getValidators + validators_getUptime
//   #/checkpoints?page=  #/checkpoint/<id>
//   #/dao  #/seat/<id>  #/proposal/<id>   through DaoLens (eth_call)
//   #/search/<text>
import { AbiBook, decodeIbftExtra, decodeParams, encodeCall } from './abi.js'

/** Rows per page of every list. */
const PAGE_SIZE = 25
/** Largest page size a URL may ask for (the node caps ots_ pages itself: [explorer] max_page_size). */
const MAX_PAGE_SIZE = 100
/** Blocks the home page reads. */
const HOME_BLOCKS = 10
/** Transactions the home page shows. */
const HOME_TXS = 10
/** How often the home page asks for a new head. */
const POLL_MS = 3000
/** Checkpoints per page of the list. */
const CHECKPOINT_PAGE = 10
/** Checkpoint ids are multiples of this (CheckpointManager's child block interval). */
const CHECKPOINT_ID_STEP = 10000
/** The DAO's seats (DaoLens.seat ids 1..150). */
const MAX_SEAT = 150
/** Largest page number a URL may name: past it the answer is "beyond the end" anyway. */
const MAX_PAGE = 1_000_000
/** Amounts under this many wei are shown in wei: 8 decimals of the token would print them as 0. */
const SMALL_WEI = 10n ** 10n
/** Blocks back the DAO page looks for ProposalCreated (one eth_getLogs, inside [jsonrpc] max_log_block_range's default). */
const PROPOSAL_WINDOW_BLOCKS = 50_000
/** Proposals the DAO page lists (newest first). */
const PROPOSALS_SHOWN = 25
/** Revenue epochs and disputes the DAO page shows (newest first). */
const EPOCHS_SHOWN = 10
const DISPUTES_SHOWN = 10
/** Rows of a transaction's logs, internal operations or call trace drawn: past it the page says how many more there are. */
const MAX_ROWS_DRAWN = 500
const TIER_NAMES = ['', 'Tier I', 'Tier II', 'Tier III']
const PROPOSAL_STATES = ['Pending', 'Active', 'Canceled', 'Defeated', 'Succeeded', 'Queued', 'Expired', 'Executed']

const RPC_URL = location.pathname
const METHOD_NOT_FOUND = -32601

class RpcError extends Error {
  constructor(code, message, data) {
    super(message)
    this.code = code
    this.data = data
  }
}

/** Shown as a plain message box instead of the page (bad input, unknown hash, no such page). */
class PageMessage extends Error {}

let nextId = 1
async function post(body) {
  const res = await fetch(RPC_URL, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  if (res.status === 429) throw new PageMessage('This node is rate-limiting your requests; wait a few seconds and reload.')
  if (!res.ok) throw new PageMessage(`The node answered HTTP ${res.status}.`)
  return res.json()
}

function unwrap(answer) {
  if (answer.error !== undefined) throw new RpcError(answer.error.code, answer.error.message, answer.error.data)
  return answer.result
}

/** rpc: one call; an error answer throws RpcError. */
async function rpc(method, params = []) {
  return unwrap(await post({ jsonrpc: '2.0', id: nextId++, method, params }))
}

/** batch: several calls in one request (one request against the rate limit per call, as JSON-RPC counts them). */
async function batch(calls) {
  if (calls.length === 0) return []
  const first = nextId
  nextId += calls.length
  const answers = await post(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: first + i, method, params })))
  if (!Array.isArray(answers)) throw new RpcError(answers.error?.code ?? 0, answers.error?.message ?? 'bad batch answer')
  const byId = new Map(answers.map((a) => [a.id, a]))
  return calls.map((_, i) => unwrap(byId.get(first + i) ?? { error: { code: 0, message: 'missing answer' } }))
}

/** batchSettled: like batch, but a refused call gives undefined instead of failing the others. */
async function batchSettled(calls) {
  if (calls.length === 0) return []
  const first = nextId
  nextId += calls.length
  const answers = await post(calls.map(([method, params], i) => ({ jsonrpc: '2.0', id: first + i, method, params })))
  if (!Array.isArray(answers)) return calls.map(() => undefined)
  const byId = new Map(answers.map((x) => [x.id, x]))
  return calls.map((_, i) => byId.get(first + i)?.result ?? undefined)
}

/** optional: the result, or {missing: message} when the node does not serve the method or refuses it. */
async function optional(method, params = []) {
  try {
    return { value: await rpc(method, params) }
  } catch (err) {
    if (err instanceof RpcError) return { missing: err.code === METHOD_NOT_FOUND ? 'not served by this node' : err.message, code: err.code }
    throw err
  }
}

// ---- DOM ----

function h(tag, attrs, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue
    if (k === 'class') el.className = v
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue
    el.append(c instanceof Node ? c : document.createTextNode(String(c)))
  }
  return el
}

const a = (href, text, cls) => h('a', { href, class: cls }, text)
const short = (hex) => (hex.length > 18 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : hex)

let known = { labels: {}, contracts: {}, entries: [], network: '', symbol: 'ETH' }
let book = new AbiBook(known)

function addressLink(addr, full = false) {
  if (typeof addr !== 'string') return h('span', { class: 'muted' }, '—')
  const lower = addr.toLowerCase()
  const label = known.labels[lower]
  return h('span', { class: 'addr' }, a(`#/address/${lower}`, full ? lower : short(lower), 'mono'), label ? h('span', { class: 'tag' }, label) : null)
}
const txLink = (hash, full = false) => a(`#/tx/${hash}`, full ? hash : short(hash), 'mono')
const blockLink = (n) => a(`#/block/${n}`, `#${n}`)

function kv(rows) {
  return h(
    'table',
    { class: 'kv' },
    rows.filter((r) => r !== null).map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v))),
  )
}

function table(headers, rows, empty = 'Nothing to show.') {
  if (rows.length === 0) return h('p', { class: 'muted' }, empty)
  return h('table', { class: 'list' }, h('thead', null, h('tr', null, headers.map((x) => h('th', null, x)))), h('tbody', null, rows.map((r) => h('tr', null, r.map((c) => h('td', null, c))))))
}

const section = (title, ...body) => h('section', null, h('h2', null, title), ...body)
/** more: a note under a list cut at MAX_ROWS_DRAWN rows. */
const more = (list) => (Array.isArray(list) && list.length > MAX_ROWS_DRAWN ? h('p', { class: 'note' }, `… and ${list.length - MAX_ROWS_DRAWN} more not drawn.`) : null)
const note = (text) => h('p', { class: 'note' }, text)

// ---- values ----


function ether(wei) {
  const v = BigInt(wei)
  const neg = v < 0n
  const abs = neg ? -v : v
  // below 10 gwei the 8 decimals shown would round it away
  if (abs > 0n && abs < SMALL_WEI) return `${v.toString()} wei`
  const whole = abs / 10n ** 18n
  const frac = (abs % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '')
  return `${neg ? '-' : ''}${whole.toLocaleString('en-US')}${frac ? `.${frac.slice(0, 8)}` : ''} ${known.symbol}`
}

const gwei = (wei) => `${(Number(BigInt(wei)) / 1e9).toLocaleString('en-US', { maximumFractionDigits: 4 })} gwei`

function age(timestamp) {
  const s = Math.max(0, Math.floor(Date.now() / 1000) - Number(timestamp))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86400)} d ago`
}

const when = (timestamp) => `${new Date(Number(timestamp) * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC (${age(timestamp)})`

/** A decoded or JSON value as DOM: addresses link, hashes are monospace, quantities are decimal, structs nest. */
function value(v, type) {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, '—')
  if (typeof v === 'bigint') return type === 'uint8' || type === undefined || !type.startsWith('uint') || v < 10n ** 15n ? v.toString() : `${v.toString()} (${ether(v)})`
  if (typeof v === 'boolean') return v ? 'yes' : 'no'
  if (typeof v === 'number') return String(v)
  if (typeof v === 'string') {
    if (/^0x[0-9a-fA-F]{40}$/.test(v)) return addressLink(v, true)
    if (/^0x[0-9a-fA-F]{64}$/.test(v)) return h('span', { class: 'mono' }, v)
    if (/^0x[0-9a-fA-F]{1,32}$/.test(v) && type === 'quantity') return BigInt(v).toString()
    if (v.startsWith('0x')) return h('span', { class: 'mono wrap' }, v.length > 202 ? `${v.slice(0, 202)}… (${(v.length - 2) / 2} bytes)` : v)
    return v
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return h('span', { class: 'muted' }, '(none)')
    return h('ol', { class: 'values' }, v.map((x) => h('li', null, value(x))))
  }
  if (typeof v === 'object') return kv(Object.entries(v).map(([k, x]) => [k, value(x, quantityKey(k, x))]))
  return String(v)
}

/** JSON-RPC objects carry quantities as hex: a short hex string under any key is shown as a number. */
const quantityKey = (_k, x) => (typeof x === 'string' && /^0x[0-9a-f]{1,32}$/.test(x) ? 'quantity' : undefined)

function decodedCall(input) {
  if (input === '0x' || input === undefined) return null
  const d = book.decodeCall(input)
  if (d === undefined) return h('div', null, h('p', { class: 'muted' }, `Unknown function ${input.slice(0, 10)}`), value(input))
  return h(
    'div',
    null,
    h('p', null, h('code', null, d.entry.signature), h('span', { class: 'tag' }, d.entry.source)),
    table(
      ['#', 'name', 'type', 'value'],
      d.entry.inputs.map((p, i) => [String(i), p.name || '', p.type, value(d.values[i], p.type)]),
      'No arguments.',
    ),
  )
}

/** methodName: the called function's name, `transfer` for plain value, `create` for a deployment (`to` null). */
function methodName(input, to) {
  if (to === null) return 'create'
  if (input === undefined || input === '0x') return 'transfer'
  const d = book.decodeCall(input)
  return d === undefined ? input.slice(0, 10) : d.entry.signature.slice(0, d.entry.signature.indexOf('('))
}

function revertText(data) {
  if (data === undefined || data === null || data === '0x') return 'reverted without a reason'
  const d = book.decodeError(data)
  if (d === undefined) return `reverted with data ${data}`
  if (d.entry.signature === 'Error(string)') return `reverted: ${d.values[0]}`
  if (d.entry.signature === 'Panic(uint256)') return `panic 0x${d.values[0].toString(16)}`
  return `reverted: ${d.entry.signature.split('(')[0]}(${d.values.map(String).join(', ')}) [${d.entry.source}]`
}

// ---- parameters ----

const isAddress = (s) => /^0x[0-9a-fA-F]{40}$/.test(s)
const isHash = (s) => /^0x[0-9a-fA-F]{64}$/.test(s)
const hex = (n) => `0x${BigInt(n).toString(16)}`

function pageParam(query) {
  const raw = query.get('page')
  if (raw === null) return 0
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE) throw new PageMessage(`Page "${raw}" is not a page number (1 to ${MAX_PAGE}).`)
  return Number(raw) - 1
}

function sizeParam(query) {
  const raw = query.get('size')
  if (raw === null) return PAGE_SIZE
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PAGE_SIZE) throw new PageMessage(`Page size "${raw}" is not allowed: pages hold 1 to ${MAX_PAGE_SIZE} rows.`)
  return Number(raw)
}

function pager(base, page, pages, size) {
  const q = (p) => `${base}?page=${p + 1}${size === PAGE_SIZE ? '' : `&size=${size}`}`
  return h('nav', { class: 'pager' }, page > 0 ? a(q(0), '« first') : null, page > 0 ? a(q(page - 1), '‹ previous') : null, h('span', null, `page ${page + 1} of ${Math.max(1, pages)}`), page + 1 < pages ? a(q(page + 1), 'next ›') : null, page + 1 < pages ? a(q(pages - 1), 'last »') : null)
}

// ---- pages ----

async function homePage(ctx) {
  const head = Number(await rpc('eth_blockNumber'))
  const numbers = []
  for (let n = head; n >= 0 && numbers.length < HOME_BLOCKS; n--) numbers.push(n)
  const blocks = await batch(numbers.map((n) => ['eth_getBlockByNumber', [hex(n), false]]))
  const hashes = []
  for (const b of blocks) for (const t of [...b.transactions].reverse()) if (hashes.length < HOME_TXS) hashes.push(t)
  const txs = await batch(hashes.map((t) => ['eth_getTransactionByHash', [t]]))
  ctx.every(POLL_MS, async () => {
    if (Number(await rpc('eth_blockNumber')) !== head) ctx.reload()
  })
  return h(
    'div',
    { class: 'columns' },
    section(
      'Latest blocks',
      table(
        ['block', 'age', 'txs', 'gas used', 'hash'],
        blocks.map((b) => [blockLink(Number(b.number)), age(b.timestamp), String(b.transactions.length), Number(b.gasUsed).toLocaleString('en-US'), h('span', { class: 'mono' }, short(b.hash))]),
      ),
    ),
    section(
      'Latest transactions',
      table(
        ['hash', 'block', 'from', 'to', 'value', 'method'],
        txs.map((t) => [txLink(t.hash), blockLink(Number(t.blockNumber)), addressLink(t.from), t.to ? addressLink(t.to) : 'contract creation', ether(t.value), methodName(t.input, t.to)]),
        `No transactions in the last ${HOME_BLOCKS} blocks.`,
      ),
    ),
  )
}

async function blockPage(ctx, id) {
  let block
  if (/^\d+$/.test(id)) block = await rpc('eth_getBlockByNumber', [hex(id), false])
  else if (isHash(id)) block = await rpc('eth_getBlockByHash', [id, false])
  else throw new PageMessage(`"${id}" is not a block number or a 32-byte block hash.`)
  if (block === null) throw new PageMessage(`This node has no block ${id}.`)
  const number = Number(block.number)
  const size = sizeParam(ctx.query)
  const page = pageParam(ctx.query)
  const pages = Math.ceil(block.transactions.length / size)
  if (page > 0 && page >= pages) throw new PageMessage(`Block #${number} has ${block.transactions.length} transactions: page ${page + 1} is beyond the last (${Math.max(pages, 1)}).`)
  const hashes = block.transactions.slice(page * size, (page + 1) * size)
  const [author, details, checkpoint, head] = await Promise.all([
    optional('bor_getAuthor', [hex(number)]),
    optional('ots_getBlockDetails', [number]),
    optional('validators_getCheckpointOfBlock', [hex(number)]),
    rpc('eth_blockNumber'),
  ])
  const rows = await batch(hashes.flatMap((t) => [['eth_getTransactionByHash', [t]], ['eth_getTransactionReceipt', [t]]]))
  const ibft = decodeIbftExtra(block.extraData)
  let cp
  if (checkpoint.value === null) cp = 'awaiting checkpoint'
  else if (checkpoint.value !== undefined) cp = h('span', null, 'checkpointed in ', a(`#/checkpoint/${BigInt(checkpoint.value.id)}`, `#${BigInt(checkpoint.value.id)}`))
  else cp = h('span', { class: 'muted' }, checkpoint.code === METHOD_NOT_FOUND ? 'no validator layer served by this node' : checkpoint.missing)
  return h(
    'div',
    null,
    h('h1', null, `Block #${number}`),
    h('nav', { class: 'pager' }, number > 0 ? a(`#/block/${number - 1}`, '‹ parent') : null, number < Number(head) ? a(`#/block/${number + 1}`, 'child ›') : null),
    kv([
      ['hash', h('span', { class: 'mono' }, block.hash)],
      ['parent', a(`#/block/${block.parentHash}`, block.parentHash, 'mono')],
      ['time', when(block.timestamp)],
      ['transactions', String(block.transactions.length)],
      ['finality', ibft !== undefined && ibft.committedSeals > 0 ? 'IBFT-final (committed seals present)' : number === 0 ? 'genesis' : 'not sealed'],
      ['IBFT round', ibft === undefined ? h('span', { class: 'muted' }, 'not an IBFT extraData') : ibft.round.toString()],
      ['committed seals', ibft === undefined ? '—' : `${ibft.committedSeals} of ${ibft.validators} validators`],
      ['proposer', author.value !== undefined ? addressLink(author.value, true) : h('span', { class: 'muted' }, `bor_getAuthor ${author.missing}`)],
      ['checkpoint', cp],
      ['gas used', `${Number(block.gasUsed).toLocaleString('en-US')} of ${Number(block.gasLimit).toLocaleString('en-US')}`],
      ['base fee', block.baseFeePerGas ? gwei(block.baseFeePerGas) : '—'],
      ['total fees', details.value !== undefined ? ether(details.value.totalFees) : h('span', { class: 'muted' }, `ots_getBlockDetails ${details.missing}`)],
      ['fee recipient', addressLink(block.miner, true)],
      ['state root', h('span', { class: 'mono' }, block.stateRoot)],
    ]),
    section(
      `Transactions (${block.transactions.length})`,
      table(
        ['#', 'hash', 'from', 'to', 'value', 'fee', 'method', 'status'],
        hashes.map((_, i) => {
          const t = rows[2 * i]
          const r = rows[2 * i + 1]
          return [String(page * size + i), txLink(t.hash), addressLink(t.from), t.to ? addressLink(t.to) : addressLink(r?.contractAddress), ether(t.value), r ? ether(BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)) : '—', methodName(t.input, t.to), r?.status === '0x1' ? 'success' : h('span', { class: 'bad' }, 'failed')]
        }),
        'This block has no transactions.',
      ),
      pages > 1 ? pager(`#/block/${number}`, page, pages, size) : null,
    ),
  )
}

async function txPage(_ctx, hash) {
  if (!isHash(hash)) throw new PageMessage(`"${hash}" is not a transaction hash (0x and 64 hex digits).`)
  const [t, r] = await batch([
    ['eth_getTransactionByHash', [hash]],
    ['eth_getTransactionReceipt', [hash]],
  ])
  if (t === null) throw new PageMessage(`This node knows no transaction ${hash}.`)
  if (r === null) return h('div', null, h('h1', null, 'Transaction (pending)'), kv([['hash', hash], ['from', addressLink(t.from, true)], ['to', addressLink(t.to, true)], ['value', ether(t.value)], ['nonce', String(Number(t.nonce))]]))
  const [block, error, ops, trace] = await Promise.all([
    rpc('eth_getBlockByNumber', [r.blockNumber, false]),
    r.status === '0x1' ? Promise.resolve({ value: '0x' }) : optional('ots_getTransactionError', [hash]),
    optional('ots_getInternalOperations', [hash]),
    optional('ots_traceTransaction', [hash]),
  ])
  const nonce = Number(t.nonce)
  const [previous, next] = await batchSettled([
    ['ots_getTransactionBySenderAndNonce', [t.from, nonce - 1]],
    ['ots_getTransactionBySenderAndNonce', [t.from, nonce + 1]],
  ])
  const fee = BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)
  const decodedLogs = r.logs.map((l) => ({ log: l, d: book.decodeLog(l) }))
  const transfers = decodedLogs.filter(({ d }) => d !== undefined && d.entry.signature === 'Transfer(address,address,uint256)')
  return h(
    'div',
    null,
    h('h1', null, 'Transaction'),
    kv([
      ['hash', h('span', { class: 'mono' }, hash)],
      ['status', r.status === '0x1' ? h('span', { class: 'good' }, 'success') : h('span', { class: 'bad' }, `failed — ${error.value !== undefined ? revertText(error.value) : `revert reason: ots_getTransactionError ${error.missing}`}`)],
      ['block', h('span', null, blockLink(Number(r.blockNumber)), ` (index ${Number(r.transactionIndex)})`)],
      ['time', when(block.timestamp)],
      ['from', addressLink(t.from, true)],
      ['to', t.to ? addressLink(t.to, true) : h('span', null, 'contract creation: ', addressLink(r.contractAddress, true))],
      ['value', ether(t.value)],
      ['fee', `${ether(fee)} (${Number(r.gasUsed).toLocaleString('en-US')} gas × ${gwei(r.effectiveGasPrice)})`],
      ['gas limit', Number(t.gas).toLocaleString('en-US')],
      ['nonce', h('span', null, String(nonce), nonce > 0 && typeof previous === 'string' ? h('span', null, ' ', a(`#/tx/${previous}`, '‹ previous from sender')) : null, typeof next === 'string' ? h('span', null, ' ', a(`#/tx/${next}`, 'next from sender ›')) : null)],
      ['type', String(Number(t.type))],
    ]),
    t.input !== '0x' ? section('Input', t.to ? decodedCall(t.input) : note(`contract creation code, ${(t.input.length - 2) / 2} bytes`)) : null,
    transfers.length > 0
      ? section(
          'Token transfers',
          table(
            ['token', 'standard', 'from', 'to', 'amount or id'],
            transfers.slice(0, MAX_ROWS_DRAWN).map(({ log, d }) => [addressLink(log.address), d.entry.source, addressLink(d.values[0]), addressLink(d.values[1]), d.values[2].toString()]),
          ),
          more(transfers),
        )
      : null,
    section(
      `Logs (${r.logs.length})`,
      r.logs.length === 0
        ? note('No logs.')
        : h(
            'ol',
            { class: 'logs' },
            decodedLogs.slice(0, MAX_ROWS_DRAWN).map(({ log, d }) =>
              h(
                'li',
                null,
                h('p', null, addressLink(log.address, true), ' ', d ? h('code', null, d.entry.signature) : h('span', { class: 'muted' }, 'unknown event'), d ? h('span', { class: 'tag' }, d.entry.source) : null),
                d ? table(['name', 'type', 'value'], d.entry.inputs.map((p, i) => [`${p.name || i}${p.indexed ? ' (indexed)' : ''}`, p.type, value(d.values[i], p.type)])) : kv([['topics', value(log.topics)], ['data', value(log.data)]]),
              ),
            ),
          ),
      more(decodedLogs),
    ),
    section(
      'Internal operations',
      ops.value === undefined
        ? note(`ots_getInternalOperations ${ops.missing}`)
        : table(
            ['type', 'from', 'to', 'value'],
            ops.value.slice(0, MAX_ROWS_DRAWN).map((o) => [['transfer', 'self-destruct', 'create', 'create2'][o.type] ?? String(o.type), addressLink(o.from), addressLink(o.to), ether(o.value)]),
            'No internal value transfers or contract creations.',
          ),
      more(ops.value),
    ),
    section(
      'Call trace',
      trace.value === undefined
        ? note(`ots_traceTransaction ${trace.missing}`)
        : table(
            ['depth', 'type', 'from', 'to', 'value', 'call'],
            trace.value.slice(0, MAX_ROWS_DRAWN).map((c) => [String(c.depth), c.type, addressLink(c.from), addressLink(c.to), c.value === null ? '—' : ether(c.value), h('span', { class: `indent-${Math.min(c.depth, 8)}` }, c.type.startsWith('CREATE') ? 'create' : methodName(c.input))]),
            'No calls.',
          ),
      more(trace.value),
    ),
  )
}

async function addressPage(ctx, addr) {
  if (!isAddress(addr)) throw new PageMessage(`"${addr}" is not an address (0x and 40 hex digits).`)
  const size = sizeParam(ctx.query)
  const before = ctx.query.get('before')
  const after = ctx.query.get('after')
  for (const [k, v] of [
    ['before', before],
    ['after', after],
  ]) {
    if (v !== null && !/^\d+$/.test(v)) throw new PageMessage(`"${k}=${v}" is not a block number.`)
  }
  const [balance, nonce, code] = await batch([
    ['eth_getBalance', [addr, 'latest']],
    ['eth_getTransactionCount', [addr, 'latest']],
    ['eth_getCode', [addr, 'latest']],
  ])
  const creator = code === '0x' ? undefined : await optional('ots_getContractCreator', [addr])
  const history = after !== null ? await optional('ots_searchTransactionsAfter', [addr, Number(after), size]) : await optional('ots_searchTransactionsBefore', [addr, Number(before ?? 0), size])
  const lower = addr.toLowerCase()
  let historyBody
  if (history.value === undefined) historyBody = note(`Address history needs the ots namespace: ${history.missing}`)
  else {
    const { txs, receipts, firstPage, lastPage } = history.value
    const base = `#/address/${lower}`
    const sz = size === PAGE_SIZE ? '' : `&size=${size}`
    const moves = []
    txs.forEach((t, i) => {
      for (const log of receipts[i].logs ?? []) {
        const d = book.decodeLog(log)
        if (d === undefined || d.entry.signature !== 'Transfer(address,address,uint256)') continue
        if (log.address.toLowerCase() === lower || d.values[0] === lower || d.values[1] === lower) moves.push({ t, log, d })
      }
    })
    historyBody = h(
      'div',
      null,
      table(
        ['hash', 'block', 'age', 'from', 'to', 'value', 'method', 'status'],
        txs.map((t, i) => {
          const r = receipts[i]
          const direct = t.from.toLowerCase() === lower || t.to?.toLowerCase() === lower || r.contractAddress?.toLowerCase() === lower
          return [txLink(t.hash), blockLink(Number(t.blockNumber)), age(r.timestamp), addressLink(t.from), t.to ? addressLink(t.to) : 'contract creation', ether(t.value), h('span', null, methodName(t.input, t.to), direct ? null : h('span', { class: 'tag' }, 'internal')), r.status === '0x1' ? 'success' : h('span', { class: 'bad' }, 'failed')]
        }),
        after !== null || before !== null ? 'No transactions on this side of that block.' : 'No transactions touch this address.',
      ),
      h(
        'nav',
        { class: 'pager' },
        !firstPage ? a(`${base}?before=0${sz}`, '« newest') : null,
        !firstPage && txs.length > 0 ? a(`${base}?after=${Number(txs[0].blockNumber)}${sz}`, '‹ newer') : null,
        !lastPage && txs.length > 0 ? a(`${base}?before=${Number(txs[txs.length - 1].blockNumber)}${sz}`, 'older ›') : null,
        !lastPage ? a(`${base}?after=0${sz}`, 'oldest »') : null,
      ),
      moves.length > 0
        ? h(
            'div',
            null,
            h('h3', null, 'Token transfers in these transactions'),
            table(
              ['transaction', 'token', 'standard', 'from', 'to', 'amount or id'],
              moves.map(({ t, log, d }) => [txLink(t.hash), addressLink(log.address), d.entry.source, addressLink(d.values[0]), addressLink(d.values[1]), d.values[2].toString()]),
            ),
          )
        : null,
    )
  }
  const token = code === '0x' ? undefined : await tokenInfo(lower)
  return h(
    'div',
    null,
    h('h1', null, code === '0x' ? 'Address' : 'Contract', ' ', h('span', { class: 'mono' }, lower), known.labels[lower] ? h('span', { class: 'tag' }, known.labels[lower]) : null),
    kv([
      ['balance', ether(balance)],
      ['nonce', String(Number(nonce))],
      ['code', code === '0x' ? 'none (an externally owned account)' : `${(code.length - 2) / 2} bytes`],
      creator === undefined ? null : ['creator', creator.value === undefined ? h('span', { class: 'muted' }, `ots_getContractCreator ${creator.missing}`) : creator.value === null ? 'genesis contract' : h('span', null, addressLink(creator.value.creator, true), ' in ', txLink(creator.value.hash))],
    ]),
    token === undefined ? null : section('Token', kv(token)),
    section('Transactions (newest first, internal calls included)', historyBody),
    readSection(lower),
    code === '0x' ? null : section('Code', value(code)),
  )
}

/** ERC-20 metadata selectors: name(), symbol(), decimals(), totalSupply(). */
const TOKEN_CALLS = [
  ['name', '0x06fdde03', 'string'],
  ['symbol', '0x95d89b41', 'string'],
  ['decimals', '0x313ce567', 'uint8'],
  ['total supply', '0x18160ddd', 'uint256'],
]

/** tokenInfo: [label, value] rows when the contract answers the ERC-20 metadata calls (four eth_calls, one batch), else undefined. */
async function tokenInfo(address) {
  const out = await batchSettled(TOKEN_CALLS.map(([, data]) => ['eth_call', [{ to: address, data }, 'latest']]))
  const rows = []
  TOKEN_CALLS.forEach(([label, , type], i) => {
    const v = out[i] === undefined || out[i] === '0x' ? undefined : decodeParams([{ type, name: label }], out[i])
    if (v !== undefined) rows.push([label, type === 'uint256' ? v[0].toString() : String(v[0])])
  })
  return rows.length >= 2 ? rows : undefined
}

/** Argument types the read form takes from a text box. */
const SIMPLE_INPUT = /^(u?int\d*|address|bool|bytes32)$/

/** readSection: the read-only functions of a labelled DAO contract, each called with eth_call on request. */
function readSection(address) {
  const name = known.labels[address]
  if (name === undefined) return null
  const reads = known.entries.filter((e) => e.kind === 'function' && e.view && e.source === name && e.inputs.every((i) => SIMPLE_INPUT.test(i.type)))
  if (reads.length === 0) return null
  return section(
    `Read ${name}`,
    h(
      'ul',
      { class: 'reads' },
      reads.map((entry) => {
        const inputs = entry.inputs.map((p) => h('input', { type: 'text', class: 'arg', placeholder: `${p.name || 'arg'} (${p.type})`, 'aria-label': `${entry.signature} ${p.name}` }))
        const out = h('div', { class: 'read-out' })
        const run = async () => {
          try {
            const args = inputs.map((el, i) => parseArg(entry.inputs[i].type, el.value.trim()))
            const data = encodeCall(entry.id, entry.inputs.map((p) => p.type), args)
            const answer = await rpc('eth_call', [{ to: address, data }, 'latest'])
            const values = decodeParams(entry.outputs ?? [], answer)
            out.replaceChildren(values === undefined ? value(answer) : entry.outputs.length === 1 ? value(values[0], entry.outputs[0].type) : value(values))
          } catch (err) {
            out.replaceChildren(h('span', { class: 'bad' }, err instanceof RpcError ? revertText(err.data ?? '0x').replace('reverted without a reason', err.message) : err.message))
          }
        }
        return h('li', null, h('code', null, entry.signature), ...inputs, h('button', { type: 'button', class: 'read', onclick: run }, 'read'), out)
      }),
    ),
  )
}

/** parseArg: a text box's value as the ABI type wants it; a clear error when it is not one. */
function parseArg(type, text) {
  if (type === 'address') {
    if (!isAddress(text)) throw new Error(`"${text}" is not an address`)
    return text
  }
  if (type === 'bool') {
    if (text !== 'true' && text !== 'false') throw new Error(`"${text}" is not true or false`)
    return text === 'true'
  }
  if (type === 'bytes32') {
    if (!isHash(text)) throw new Error(`"${text}" is not 32 bytes of hex`)
    return BigInt(text)
  }
  if (!/^\d+$/.test(text) || text.length > 78) throw new Error(`"${text}" is not a non-negative integer`)
  return BigInt(text)
}

function layerMissing(result, what) {
  if (result.code === METHOD_NOT_FOUND) return h('div', { class: 'message' }, `This node has no validator layer configured: it does not serve the validators namespace, so there are no ${what} to show.`)
  return h('div', { class: 'message' }, `This node has no ${what} to show: ${result.missing}.`)
}

async function validatorsPage() {
  const [set, uptime] = await Promise.all([optional('validators_getValidators', []), optional('validators_getUptime', [])])
  if (set.value === undefined) return h('div', null, h('h1', null, 'Validators'), layerMissing(set, 'validators'))
  const list = Array.isArray(set.value) ? set.value : (set.value.validators ?? [])
  const bySigner = new Map((uptime.value?.validators ?? []).map((u) => [u.signer.toLowerCase(), u]))
  const header = Array.isArray(set.value) ? null : kv(Object.entries(set.value).filter(([k]) => k !== 'validators').map(([k, v]) => [k, value(v, quantityKey(k, v))]))
  return h(
    'div',
    null,
    h('h1', null, `Validators (${list.length})`),
    header,
    table(
      ['seat', 'tier', 'holder', 'signer', 'power', 'in committee', 'uptime', 'health'],
      list.map((v) => {
        const u = bySigner.get(String(v.signer).toLowerCase())
        const seat = v.seat === undefined ? undefined : BigInt(v.seat)
        return [seat === undefined ? '—' : a(`#/seat/${seat}`, `#${seat}`), tierOfSeat(seat), addressLink(v.holder), addressLink(v.signer), v.power === undefined ? '—' : ether(v.power), v.committeePower === undefined ? '—' : BigInt(v.committeePower) > 0n ? 'yes' : 'no', u ? `${(u.uptime * 100).toFixed(2)} % (${u.signed}/${u.of})` : '—', u ? u.health : '—']
      }),
      'The DAO has no validators seated.',
    ),
    uptime.value === undefined ? note(`Uptime: ${uptime.code === METHOD_NOT_FOUND ? 'not served by this node' : uptime.missing}.`) : note(`Uptime over the last ${uptime.value.checkpoints} checkpoints; median ${uptime.value.median}, benchmark ${uptime.value.benchmark}.`),
  )
}

/** Seat ids by tier (ValidatorNFT): 1–10 Tier I, 11–50 Tier II, 51–150 Tier III. */
function tierOfSeat(seat) {
  if (seat === undefined) return '—'
  return seat <= 10n ? 'Tier I' : seat <= 50n ? 'Tier II' : 'Tier III'
}

async function checkpointsPage(ctx) {
  const count = await optional('validators_getCheckpointCount', [])
  if (count.value === undefined) return h('div', null, h('h1', null, 'Checkpoints'), layerMissing(count, 'checkpoints'))
  const total = Number(count.value)
  const page = pageParam(ctx.query)
  const pages = Math.ceil(total / CHECKPOINT_PAGE)
  if (page > 0 && page >= pages) throw new PageMessage(`There are ${total} checkpoints: page ${page + 1} is beyond the last (${Math.max(pages, 1)}).`)
  const ids = []
  for (let k = total - page * CHECKPOINT_PAGE; k > 0 && ids.length < CHECKPOINT_PAGE; k--) ids.push(k * CHECKPOINT_ID_STEP)
  const list = await batch(ids.map((id) => ['validators_getCheckpoint', [hex(id)]]))
  return h(
    'div',
    null,
    h('h1', null, `Checkpoints (${total})`),
    table(
      ['id', 'blocks', 'proposer', 'signers', 'root', 'base-chain tx'],
      list.filter((c) => c !== null).map((c) => [a(`#/checkpoint/${BigInt(c.id)}`, `#${BigInt(c.id)}`), h('span', null, blockLink(Number(c.start)), ' – ', blockLink(Number(c.end))), addressLink(c.proposer), String(c.signers.length), h('span', { class: 'mono' }, short(c.root)), c.baseTxHash ? h('span', { class: 'mono' }, short(c.baseTxHash)) : '—']),
      'No checkpoint has been committed yet.',
    ),
    pages > 1 ? pager('#/checkpoints', page, pages, PAGE_SIZE) : null,
  )
}

async function checkpointPage(_ctx, id) {
  if (!/^\d+$/.test(id)) throw new PageMessage(`"${id}" is not a checkpoint id (a number).`)
  const c = await optional('validators_getCheckpoint', [hex(id)])
  if (c.value === undefined) {
    if (c.code === METHOD_NOT_FOUND || /no checkpoint service/.test(c.missing)) return h('div', null, h('h1', null, `Checkpoint #${id}`), layerMissing(c, 'checkpoints'))
    throw new PageMessage(`Checkpoint #${id}: ${c.missing}.`)
  }
  if (c.value === null) throw new PageMessage(`There is no checkpoint #${id}.`)
  const cp = c.value
  return h(
    'div',
    null,
    h('h1', null, `Checkpoint #${BigInt(cp.id)}`),
    kv([
      ['blocks', h('span', null, blockLink(Number(cp.start)), ' – ', blockLink(Number(cp.end)), ` (${Number(cp.end) - Number(cp.start) + 1} blocks)`)],
      ['root', h('span', { class: 'mono' }, cp.root)],
      ['proposer', addressLink(cp.proposer, true)],
      ['base-chain transaction', cp.baseTxHash ? h('span', { class: 'mono' }, cp.baseTxHash) : 'unknown'],
    ]),
    section(`Signers (${cp.signers.length})`, table(['signer'], cp.signers.map((s) => [addressLink(s, true)]))),
  )
}

// ---- DAO, through DaoLens ----

function functionEntry(contract, name) {
  return known.entries.find((e) => e.kind === 'function' && e.source === contract && e.signature.startsWith(`${name}(`))
}

/** view: the first return value of a DAO contract's view function, through eth_call at the head. */
async function view(contract, name, args = []) {
  const entry = functionEntry(contract, name)
  const address = known.contracts[contract]
  if (entry === undefined || address === undefined) throw new PageMessage(`This network has no ${contract} contract the explorer knows.`)
  const data = encodeCall(entry.id, entry.inputs.map((i) => i.type), args)
  const out = await rpc('eth_call', [{ to: address, data }, 'latest'])
  if (out === '0x') throw new PageMessage(`${contract} at ${address} has no code on this chain.`)
  const values = decodeParams(entry.outputs, out)
  if (values === undefined) throw new PageMessage(`${contract}.${name} answered data the explorer cannot decode.`)
  return values[0]
}

const lens = (name, args = []) => view('DaoLens', name, args)

function seatRows(seats) {
  return seats.map((s) => [a(`#/seat/${s.seat}`, `#${s.seat}`), addressLink(s.holder), s.votes.toString(), ether(s.stake), s.suspended ? h('span', { class: 'bad' }, 'suspended') : 'active'])
}

async function daoPage() {
  const [overview, tiers, seats] = await Promise.all([lens('overview'), lens('tiers'), lens('seats')])
  const held = seats.filter((s) => BigInt(s.holder) !== 0n)
  return h(
    'div',
    null,
    h('h1', null, 'DAO'),
    kv(Object.entries(overview).map(([k, v]) => [k, /(At|Start)$/.test(k) && typeof v === 'bigint' ? (v === 0n ? '—' : when(v)) : value(v, /stake|revenue|claimable/i.test(k) ? 'uint256' : 'uint8')])),
    section(
      'Tiers',
      table(
        ['tier', 'seated', 'capacity', 'votes per seat', 'minimum stake', 'revenue share'],
        tiers.map((t) => [TIER_NAMES[Number(t.tier)] ?? String(t.tier), t.seated.toString(), t.capacity.toString(), t.votesPerSeat.toString(), ether(t.minStake), `${Number(t.revenueShareBps) / 100} %`]),
      ),
    ),
    [1, 2, 3].map((tier) => section(`${TIER_NAMES[tier]} seats`, table(['seat', 'holder', 'votes', 'stake', 'state'], seatRows(held.filter((s) => Number(s.tier) === tier)), 'No seat of this tier is held.'))),
    await part('Proposals', proposalsSection),
    await part('Revenue epochs', () => epochsSection(overview.currentEpoch)),
    await part('Disputes', disputesSection),
  )
}

/** part: a section of a page that, when its queries fail, says so in its place instead of failing the page. */
async function part(title, build) {
  try {
    return await build()
  } catch (err) {
    return section(title, note(`Could not be read: ${err.message}`))
  }
}

/** The revenue epochs finalized last (RevenuePool.epochInfo), newest first. */
async function epochsSection(current) {
  const epochs = []
  for (let e = current - 1n; e >= 0n && epochs.length < EPOCHS_SHOWN; e--) epochs.push(e)
  const infos = await Promise.all(epochs.map((e) => view('RevenuePool', 'epochInfo', [e])))
  return section(
    'Revenue epochs',
    table(
      ['epoch', 'start', 'end', 'revenue', 'transactional revenue', 'tier pools (I / II / III)', 'credited (I / II / III)'],
      infos.map((x, i) => [epochs[i].toString(), when(x.start), when(x.end), ether(x.revenue), ether(x.transactionalRevenue), x.pools.map((p) => ether(p)).join(' / '), x.credited.map((c) => ether(c)).join(' / ')]),
      `No epoch has ended yet: epoch ${current} is collecting revenue.`,
    ),
  )
}

/** The disputes filed last (DisputeResolution.caseOf, ids 1..caseCount), newest first. */
async function disputesSection() {
  const count = await view('DisputeResolution', 'caseCount')
  const ids = []
  for (let id = count; id >= 1n && ids.length < DISPUTES_SHOWN; id--) ids.push(id)
  const cases = await Promise.all(ids.map((id) => view('DisputeResolution', 'caseOf', [id])))
  return section(
    `Disputes (${count})`,
    table(
      ['case', 'seat', 'filer', 'category', 'status', 'upheld', 'filed'],
      cases.map((c, i) => [ids[i].toString(), a(`#/seat/${c.seat}`, `#${c.seat}`), addressLink(c.filer), c.category.toString(), c.status.toString(), c.upheld ? 'yes' : 'no', c.filedAt === 0n ? '—' : when(c.filedAt)]),
      'No dispute has been filed.',
    ),
  )
}

function eventEntry(source, name) {
  return known.entries.find((e) => e.kind === 'event' && e.source === source && e.signature.startsWith(`${name}(`))
}

/** proposalsCreated: the DaoGovernor's ProposalCreated logs of the last PROPOSAL_WINDOW_BLOCKS blocks, decoded, newest first. */
async function proposalsCreated() {
  const created = eventEntry('DaoGovernor', 'ProposalCreated')
  const governor = known.contracts.DaoGovernor
  if (created === undefined || governor === undefined) return undefined
  const head = Number(await rpc('eth_blockNumber'))
  const from = Math.max(0, head - PROPOSAL_WINDOW_BLOCKS)
  const logs = await rpc('eth_getLogs', [{ address: governor, topics: [created.id], fromBlock: hex(from), toBlock: hex(head) }])
  return { from, list: logs.map((log) => ({ log, d: book.decodeLog(log) })).filter((x) => x.d !== undefined).reverse() }
}

async function proposalsSection() {
  const found = await proposalsCreated()
  if (found === undefined) return null
  const shown = found.list.slice(0, PROPOSALS_SHOWN)
  const states = await Promise.all(shown.map(({ d }) => lens('proposal', [d.values[0]])))
  return section(
    'Proposals',
    table(
      ['proposal', 'description', 'proposer', 'state', 'for', 'against', 'abstain', 'block'],
      shown.map(({ log, d }, i) => {
        const p = states[i]
        return [a(`#/proposal/${d.values[0]}`, short(d.values[0].toString())), d.values[8].slice(0, 80), addressLink(d.values[1]), PROPOSAL_STATES[Number(p.state)] ?? String(p.state), p.forVotes.toString(), p.againstVotes.toString(), p.abstainVotes.toString(), blockLink(Number(log.blockNumber))]
      }),
      `No proposal was created since block ${found.from}.`,
    ),
    note(`Proposals created since block ${found.from}; votes are tier-weighted (a seat's votes per its tier). Older ones open by id ("proposal <id>" in the search box).`),
  )
}

async function seatPage(_ctx, id) {
  if (!/^\d+$/.test(id) || Number(id) < 1 || Number(id) > MAX_SEAT) throw new PageMessage(`"${id}" is not a seat: seats are numbered 1 to ${MAX_SEAT}.`)
  const seat = await lens('seat', [BigInt(id)])
  return h('div', null, h('h1', null, `Seat #${id}`, h('span', { class: 'tag' }, tierOfSeat(BigInt(id)))), BigInt(seat.holder) === 0n ? note('This seat is not held.') : null, value(seat))
}

async function proposalPage(_ctx, id) {
  if (!/^\d+$/.test(id) || id.length > 78) throw new PageMessage(`"${id}" is not a proposal id (a decimal number).`)
  let p
  try {
    p = await lens('proposal', [BigInt(id)])
  } catch (err) {
    if (err instanceof RpcError) throw new PageMessage(`There is no proposal ${id}: ${err.message}.`)
    throw err
  }
  if (BigInt(p.proposer) === 0n) throw new PageMessage(`There is no proposal ${id}.`)
  const found = await proposalsCreated()
  const created = found?.list.find(({ d }) => d.values[0] === BigInt(id))
  const time = (t) => (t === 0n ? '—' : when(t))
  const total = p.forVotes + p.againstVotes + p.abstainVotes
  return h(
    'div',
    null,
    h('h1', null, 'Proposal'),
    h('p', { class: 'mono wrap' }, id),
    kv([
      ['state', PROPOSAL_STATES[Number(p.state)] ?? String(p.state)],
      ['proposer', addressLink(p.proposer, true)],
      created ? ['description', created.d.values[8]] : null,
      created ? ['created in', txLink(created.log.transactionHash, true)] : null,
      ['voting opens', time(p.snapshot)],
      ['voting closes', time(p.deadline)],
      ['timelock eta', time(p.eta)],
      ['for (votes)', `${p.forVotes} of ${total} cast`],
      ['against (votes)', p.againstVotes.toString()],
      ['abstain (votes)', p.abstainVotes.toString()],
      ['for / against (holdings)', `${p.forHoldings} / ${p.againstHoldings}`],
      ['quorum', p.quorum.toString()],
    ]),
    created
      ? section(
          'Actions',
          table(
            ['target', 'value', 'call'],
            created.d.values[2].map((target, i) => [addressLink(target, true), ether(created.d.values[3][i]), decodedCall(created.d.values[5][i]) ?? 'plain transfer']),
          ),
        )
      : note(`The proposal was created before block ${found?.from ?? 0}: its description and actions are not read (the explorer looks ${PROPOSAL_WINDOW_BLOCKS} blocks back).`),
  )
}

// ---- search ----

const SEARCH_HELP = 'Search takes an address, a transaction or block hash, a block number, "checkpoint N", "seat N" or "proposal ID".'

async function searchPage(ctx, text) {
  const q = decodeURIComponent(text).trim()
  if (isAddress(q)) return ctx.go(`#/address/${q.toLowerCase()}`)
  if (isHash(q)) {
    const [t, b] = await batch([
      ['eth_getTransactionByHash', [q]],
      ['eth_getBlockByHash', [q, false]],
    ])
    if (t !== null) return ctx.go(`#/tx/${q.toLowerCase()}`)
    if (b !== null) return ctx.go(`#/block/${Number(b.number)}`)
    throw new PageMessage(`No transaction or block has the hash ${q}.`)
  }
  const kind = /^(block|checkpoint|seat|proposal)\s*#?\s*(\d+)$/i.exec(q)
  if (kind !== null) return ctx.go(`#/${kind[1].toLowerCase()}/${kind[2]}`)
  if (/^#?\d+$/.test(q)) {
    const n = q.replace('#', '')
    const head = BigInt(await rpc('eth_blockNumber'))
    const links = []
    if (BigInt(n) <= head) links.push(a(`#/block/${n}`, `Block #${n}`))
    if (Number(n) >= 1 && Number(n) <= MAX_SEAT) links.push(a(`#/seat/${n}`, `Seat #${n}`))
    if (BigInt(n) % BigInt(CHECKPOINT_ID_STEP) === 0n && BigInt(n) > 0n) links.push(a(`#/checkpoint/${n}`, `Checkpoint #${n}`))
    if (n.length > 20) links.push(a(`#/proposal/${n}`, `Proposal ${short(n)}`))
    if (links.length === 1) return ctx.go(links[0].getAttribute('href'))
    if (links.length === 0) throw new PageMessage(`Nothing is numbered ${n}: the chain is at block ${head}. ${SEARCH_HELP}`)
    return h('div', null, h('h1', null, `Search: ${n}`), h('ul', null, links.map((l) => h('li', null, l))))
  }
  throw new PageMessage(`"${q}" is not something the explorer can look up. ${SEARCH_HELP}`)
}

// ---- router ----

const ROUTES = [
  [/^\/?$/, homePage],
  [/^\/block\/([^/]+)$/, blockPage],
  [/^\/tx\/([^/]+)$/, txPage],
  [/^\/address\/([^/]+)$/, addressPage],
  [/^\/validators$/, validatorsPage],
  [/^\/checkpoints$/, checkpointsPage],
  [/^\/checkpoint\/([^/]+)$/, checkpointPage],
  [/^\/dao$/, daoPage],
  [/^\/seat\/([^/]+)$/, seatPage],
  [/^\/proposal\/([^/]+)$/, proposalPage],
  [/^\/search\/(.*)$/, searchPage],
]

let generation = 0
let timers = []

async function route() {
  const gen = ++generation
  for (const t of timers) clearInterval(t)
  timers = []
  const main = document.getElementById('main')
  const raw = location.hash.replace(/^#/, '')
  const qi = raw.indexOf('?')
  const path = qi === -1 ? raw : raw.slice(0, qi)
  const ctx = {
    query: new URLSearchParams(qi === -1 ? '' : raw.slice(qi + 1)),
    every(ms, fn) {
      timers.push(
        setInterval(() => {
          if (gen === generation) fn().catch(() => undefined)
        }, ms),
      )
    },
    reload: () => route(),
    go(href) {
      location.replace(href)
      return null
    },
  }
  let page
  try {
    const found = ROUTES.map(([re, fn]) => [re.exec(path), fn]).find(([m]) => m !== null)
    if (found === undefined) throw new PageMessage(`There is no page "${path}". ${SEARCH_HELP}`)
    page = await found[1](ctx, ...found[0].slice(1))
  } catch (err) {
    const text = err instanceof PageMessage ? err.message : err instanceof RpcError ? `The node refused a query: ${err.message} (code ${err.code}).` : `The page could not be built: ${err instanceof Error ? err.message : String(err)}`
    page = h('div', { class: 'message', role: 'alert' }, text)
  }
  if (gen !== generation || page === null) return
  main.replaceChildren(page)
  // which route the content shows (the browser tests wait for it)
  main.dataset.page = raw
  document.title = `${document.querySelector('h1')?.textContent ?? 'Home'} · ibex explorer`
}

async function start() {
  const base = new URL('known.json', import.meta.url)
  known = await (await fetch(base)).json()
  book = new AbiBook(known)
  document.getElementById('network').textContent = known.chainName ?? known.network
  document.getElementById('search').addEventListener('submit', (e) => {
    e.preventDefault()
    const q = document.getElementById('q').value.trim()
    if (q !== '') location.hash = `#/search/${encodeURIComponent(q)}`
  })
  window.addEventListener('hashchange', route)
  await route()
}

start().catch((err) => {
  document.getElementById('main').replaceChildren(h('div', { class: 'message', role: 'alert' }, `The explorer could not start: ${err.message}`))
})
