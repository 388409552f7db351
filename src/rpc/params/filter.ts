/**
 * The filter-options object of eth_getLogs / eth_newFilter, decoded as geth's
 * `filters.FilterCriteria`: `fromBlock`/`toBlock` are block numbers or tags, `blockHash` (also
 * spelled `blockhash`: keys match case-insensitively) excludes both, `address` is one address or
 * an array, `topics` holds per position null (any), a topic, or an array of topics (any of them;
 * a null inside the array makes the position a wildcard).
 */
import { ServerError } from '../errors.js'
import type { ParamDecoder } from '../types.js'
import { type BlockRef, unmarshalBlockNumber } from './block.js'
import { goDecoder } from './decoder.js'
import {
  decodeHex,
  FieldMatcher,
  GoDecodeError,
  HexRuleError,
  inField,
  isPlainObject,
  kindMismatch,
  plainError,
  unmarshalHash,
} from './gojson.js'

/** Topic positions a log can have (LOG0..LOG4). */
export const MAX_FILTER_TOPICS = 4
/** OR-alternatives accepted in one topic position (geth's maxSubTopics). */
export const MAX_FILTER_SUB_TOPICS = 1000
/** Addresses accepted in one filter (geth's maxAddresses). */
export const MAX_FILTER_ADDRESSES = 1000

/** A decoded filter. */
export interface FilterCriteria {
  /** When set, fromBlock and toBlock are undefined. */
  blockHash: Uint8Array | undefined
  /** A number or tag; undefined = not given (geth: latest). */
  fromBlock: BlockRef | undefined
  toBlock: BlockRef | undefined
  /** Lowercase 0x addresses; empty = any address. */
  addresses: string[]
  /** Per position: null = any topic, else any of the listed 32-byte topics. */
  topics: (Uint8Array[] | null)[]
}

/** Alias of FilterCriteria. */
export type FilterArgs = FilterCriteria

/** The struct geth decodes into first; its Go name shows in type errors (`filters.input`). */
const STRUCT = 'input'
const FIELDS = new FieldMatcher(['blockHash', 'fromBlock', 'toBlock', 'address', 'topics'] as const)

/** filters.FilterCriteria.UnmarshalJSON. */
export function unmarshalFilterCriteria(raw: unknown): FilterCriteria {
  const out: FilterCriteria = {
    blockHash: undefined,
    fromBlock: undefined,
    toBlock: undefined,
    addresses: [],
    topics: [],
  }
  let address: unknown = null
  let topics: unknown[] | null = null
  if (raw !== null) {
    if (!isPlainObject(raw)) throw kindMismatch(raw, 'filters.input')
    let soft: GoDecodeError | undefined
    for (const key of Object.keys(raw)) {
      const field = FIELDS.field(key)
      const v = raw[key]
      try {
        switch (field) {
          case 'blockHash':
            out.blockHash = v === null ? undefined : unmarshalHash(v)
            break
          case 'fromBlock':
            out.fromBlock = v === null ? undefined : unmarshalBlockNumber(v)
            break
          case 'toBlock':
            out.toBlock = v === null ? undefined : unmarshalBlockNumber(v)
            break
          case 'address':
            address = v
            break
          case 'topics':
            if (v !== null && !Array.isArray(v)) throw kindMismatch(v, '[]interface {}')
            topics = v
            break
        }
      } catch (err) {
        inField(err, STRUCT, field ?? key)
        if (err instanceof GoDecodeError && err.soft) soft ??= err
        else throw err
      }
    }
    if (soft !== undefined) throw soft
  }
  if (out.blockHash !== undefined && (out.fromBlock !== undefined || out.toBlock !== undefined)) {
    throw plainError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other')
  }
  if (address !== null) out.addresses = decodeAddresses(address)
  if (topics !== null && topics.length > 0) out.topics = decodeTopics(topics)
  // geth checks the address count in its handlers (GetLogs, NewFilter), hence -32000.
  if (out.addresses.length > MAX_FILTER_ADDRESSES) throw new ServerError('exceed max addresses')
  return out
}

function decodeAddresses(v: unknown): string[] {
  if (typeof v === 'string') {
    try {
      return [filterAddress(v)]
    } catch (err) {
      throw plainError(`invalid address: ${messageOf(err)}`)
    }
  }
  if (!Array.isArray(v)) throw plainError('invalid addresses in query')
  const out = new Array<string>(v.length)
  for (let i = 0; i < v.length; i++) {
    const a = v[i]
    if (typeof a !== 'string') throw plainError(`non-string address at index ${i}`)
    try {
      out[i] = filterAddress(a)
    } catch (err) {
      throw plainError(`invalid address at index ${i}: ${messageOf(err)}`)
    }
  }
  return out
}

function decodeTopics(raw: unknown[]): (Uint8Array[] | null)[] {
  if (raw.length > MAX_FILTER_TOPICS) throw plainError('exceed max topics')
  const out = new Array<Uint8Array[] | null>(raw.length)
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]
    if (t === null) out[i] = null
    else if (typeof t === 'string') out[i] = [filterTopic(t)]
    else if (Array.isArray(t)) out[i] = decodeTopicAlternatives(t)
    else throw plainError('invalid topic(s)')
  }
  return out
}

function decodeTopicAlternatives(alternatives: unknown[]): Uint8Array[] | null {
  if (alternatives.length > MAX_FILTER_SUB_TOPICS) throw plainError('exceed max topics')
  const out: Uint8Array[] = []
  for (const a of alternatives) {
    // geth stops at the first null: the position matches anything, later entries go unchecked.
    if (a === null) return null
    if (typeof a !== 'string') throw plainError('invalid topic(s)')
    out.push(filterTopic(a))
  }
  return out.length === 0 ? null : out
}

/** filters.decodeAddress: hexutil.Decode, then exactly 20 bytes. */
function filterAddress(s: string): string {
  const b = decodeHex(s)
  if (b.length !== 20) throw plainError(`hex has invalid length ${b.length} after decoding; expected 20 for address`)
  return s.toLowerCase()
}

/** filters.decodeTopic: hexutil.Decode, then exactly 32 bytes; errors unwrapped. */
function filterTopic(s: string): Uint8Array {
  let b: Uint8Array
  try {
    b = decodeHex(s)
  } catch (err) {
    throw plainError(messageOf(err))
  }
  if (b.length !== 32) throw plainError(`hex has invalid length ${b.length} after decoding; expected 32 for topic`)
  return b
}

function messageOf(err: unknown): string {
  if (err instanceof GoDecodeError) return err.render()
  if (err instanceof HexRuleError) return err.message
  throw err
}

/** The filter-options object (geth `filters.FilterCriteria`). null reads as an empty filter. */
export const FilterOptions: ParamDecoder<FilterCriteria> = goDecoder(unmarshalFilterCriteria)
