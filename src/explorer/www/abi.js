// The explorer's codecs, run in the browser: Solidity ABI decoding (calls, logs, errors, return
// data), encoding of the few call arguments the pages send (uint, address, bool), and the RLP
// reading of an IBFT extraData. Malformed data never throws out of the exported functions: the
// decoders return undefined and the page shows the raw hex.

/** Largest array or bytes length decoded: a corrupt length word must not make the page allocate gigabytes. */
const MAX_DECODED_ITEMS = 10_000

const WORD = 64 // hex characters of a 32-byte word

function strip(hex) {
  return hex.startsWith('0x') ? hex.slice(2) : hex
}

function wordAt(data, offset) {
  const w = data.slice(offset * 2, offset * 2 + WORD)
  if (w.length !== WORD) throw new Error('data too short')
  return w
}

function uintAt(data, offset) {
  return BigInt(`0x${wordAt(data, offset)}`)
}

function smallAt(data, offset) {
  const v = uintAt(data, offset)
  if (v > BigInt(data.length)) throw new Error('offset or length beyond the data')
  return Number(v)
}

function isDynamic(param) {
  const t = param.type
  if (t === 'bytes' || t === 'string' || t.endsWith('[]')) return true
  const fixed = /^(.*)\[(\d+)\]$/.exec(t)
  if (fixed !== null) return isDynamic({ ...param, type: fixed[1] })
  if (t === 'tuple') return (param.components ?? []).some(isDynamic)
  return false
}

function headSize(param) {
  if (isDynamic(param)) return 32
  const fixed = /^(.*)\[(\d+)\]$/.exec(param.type)
  if (fixed !== null) return Number(fixed[2]) * headSize({ ...param, type: fixed[1] })
  if (param.type === 'tuple') return (param.components ?? []).reduce((n, c) => n + headSize(c), 0)
  return 32
}

/** decodeTuple: the values of `params` laid out from byte `base` of `data` (hex without 0x). */
function decodeTuple(params, data, base) {
  const out = []
  let head = base
  for (const param of params) {
    if (isDynamic(param)) out.push(decodeValue(param, data, base + smallAt(data, head)))
    else out.push(decodeValue(param, data, head))
    head += headSize(param)
  }
  return out
}

function decodeValue(param, data, offset) {
  const t = param.type
  const array = /^(.*)\[(\d*)\]$/.exec(t)
  if (array !== null) {
    const inner = { ...param, type: array[1] }
    let count
    let start = offset
    if (array[2] === '') {
      count = smallAt(data, offset)
      start = offset + 32
    } else count = Number(array[2])
    if (count > MAX_DECODED_ITEMS) throw new Error('array too long')
    return decodeTuple(Array.from({ length: count }, () => inner), data, start)
  }
  if (t === 'tuple') {
    const values = decodeTuple(param.components ?? [], data, offset)
    const named = {}
    ;(param.components ?? []).forEach((c, i) => {
      named[c.name || String(i)] = values[i]
    })
    return named
  }
  if (t === 'bytes' || t === 'string') {
    const length = smallAt(data, offset)
    if (length > MAX_DECODED_ITEMS * 32) throw new Error('bytes too long')
    const hex = data.slice((offset + 32) * 2, (offset + 32) * 2 + length * 2)
    if (hex.length !== length * 2) throw new Error('data too short')
    if (t === 'bytes') return `0x${hex}`
    return new TextDecoder().decode(hexToBytes(hex))
  }
  const w = wordAt(data, offset)
  if (t === 'address') return `0x${w.slice(24)}`
  if (t === 'bool') return BigInt(`0x${w}`) !== 0n
  if (t.startsWith('uint')) return BigInt(`0x${w}`)
  if (t.startsWith('int')) {
    const bits = Number(t.slice(3) || '256')
    const v = BigInt(`0x${w}`) & ((1n << BigInt(bits)) - 1n)
    return v >= 1n << BigInt(bits - 1) ? v - (1n << BigInt(bits)) : v
  }
  if (t.startsWith('bytes')) return `0x${w.slice(0, Number(t.slice(5)) * 2)}`
  return `0x${w}`
}

export function hexToBytes(hex) {
  const h = strip(hex)
  const out = new Uint8Array(h.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(h.slice(i * 2, i * 2 + 2), 16)
  return out
}

/** decodeParams: the values of `params` in ABI-encoded `hex`, or undefined when it does not decode. */
export function decodeParams(params, hex) {
  try {
    return decodeTuple(params, strip(hex), 0)
  } catch {
    return undefined
  }
}

/** Known entries by id (selector or topic): several per id when the indexed pattern differs. */
export class AbiBook {
  constructor(known) {
    this.byId = new Map()
    for (const e of known.entries) {
      const list = this.byId.get(e.id) ?? []
      list.push(e)
      this.byId.set(e.id, list)
    }
  }

  /** decodeCall: {entry, values} for calldata whose selector is known, else undefined. */
  decodeCall(input, kind = 'function') {
    if (typeof input !== 'string' || input.length < 10) return undefined
    const id = input.slice(0, 10).toLowerCase()
    for (const entry of this.byId.get(id) ?? []) {
      if (entry.kind !== kind) continue
      const values = decodeParams(entry.inputs, `0x${input.slice(10)}`)
      if (values !== undefined) return { entry, values }
    }
    return undefined
  }

  /** decodeError: revert data as Error(string), Panic(uint256) or a known custom error. */
  decodeError(data) {
    return this.decodeCall(data, 'error')
  }

  /** decodeLog: {entry, values} for a log whose topic0 and indexed pattern are known, else undefined. */
  decodeLog(log) {
    const topics = log.topics ?? []
    if (topics.length === 0) return undefined
    for (const entry of this.byId.get(topics[0].toLowerCase()) ?? []) {
      if (entry.kind !== 'event') continue
      const indexed = entry.inputs.filter((i) => i.indexed)
      if (indexed.length !== topics.length - 1) continue
      const plain = decodeParams(
        entry.inputs.filter((i) => !i.indexed),
        log.data,
      )
      if (plain === undefined) continue
      let ti = 1
      let pi = 0
      const values = entry.inputs.map((input) => {
        if (!input.indexed) return plain[pi++]
        const topic = topics[ti++]
        // a dynamic indexed value is stored as its hash
        return isDynamic(input) ? topic : decodeValue(input, strip(topic), 0)
      })
      return { entry, values }
    }
    return undefined
  }
}

/** encodeCall: selector ‖ arguments, for uint*, int* (non-negative), address and bool arguments only. */
export function encodeCall(selector, types, args) {
  let out = strip(selector)
  types.forEach((t, i) => {
    const v = args[i]
    if (t === 'address') out += strip(String(v)).toLowerCase().padStart(WORD, '0')
    else if (t === 'bool') out += (v ? '1' : '0').padStart(WORD, '0')
    else out += BigInt(v).toString(16).padStart(WORD, '0')
  })
  return `0x${out}`
}

// ---- RLP, for the IBFT extraData: vanity (32 bytes) ‖ RLP([validators, proposerSeal, committedSeals, parentCommittedSeals, round, span?]) ----

function rlpItem(bytes, pos) {
  const b = bytes[pos]
  if (b === undefined) throw new Error('rlp: truncated')
  if (b < 0x80) return { value: bytes.slice(pos, pos + 1), end: pos + 1 }
  if (b < 0xb8) return { value: bytes.slice(pos + 1, pos + 1 + b - 0x80), end: pos + 1 + b - 0x80 }
  if (b < 0xc0) {
    const n = b - 0xb7
    const len = lengthOf(bytes, pos + 1, n)
    return { value: bytes.slice(pos + 1 + n, pos + 1 + n + len), end: pos + 1 + n + len }
  }
  let start
  let len
  if (b < 0xf8) {
    start = pos + 1
    len = b - 0xc0
  } else {
    const n = b - 0xf7
    start = pos + 1 + n
    len = lengthOf(bytes, pos + 1, n)
  }
  const end = start + len
  if (end > bytes.length) throw new Error('rlp: truncated')
  const items = []
  for (let p = start; p < end; ) {
    const item = rlpItem(bytes, p)
    items.push(item.value)
    p = item.end
  }
  return { value: items, end }
}

function lengthOf(bytes, pos, n) {
  let len = 0
  for (let i = 0; i < n; i++) len = len * 256 + bytes[pos + i]
  return len
}

/** decodeIbftExtra: {validators, committedSeals, round, hasProposerSeal} of a header's extraData, or undefined. */
export function decodeIbftExtra(extraData) {
  try {
    const bytes = hexToBytes(extraData)
    const { value } = rlpItem(bytes, 32)
    if (!Array.isArray(value) || value.length < 5) return undefined
    const round = Array.from(value[4]).reduce((n, x) => n * 256n + BigInt(x), 0n)
    return {
      validators: value[0].length,
      hasProposerSeal: value[1].length > 0,
      committedSeals: value[2].length,
      parentCommittedSeals: value[3].length,
      round,
    }
  } catch {
    return undefined
  }
}
