/**
 * Block selectors. Two decoders, as geth has two types:
 *  - BlockNumber (geth `rpc.BlockNumber`): a tag or a hex number, for methods that only take a
 *    number (eth_getBlockByNumber, eth_getBlockTransactionCountByNumber, filters' from/to);
 *  - BlockTag (geth `rpc.BlockNumberOrHash`): also a 32-byte hash, or an EIP-1898 object
 *    `{blockNumber}` / `{blockHash, requireCanonical?}`.
 */
import type { ParamDecoder } from '../types.js'
import { goDecoder } from './decoder.js'
import {
  decodeUint64,
  FieldMatcher,
  fixedText,
  GoDecodeError,
  isPlainObject,
  jsonKind,
  plainError,
  plainHex,
  unmarshalHash,
} from './gojson.js'

export type BlockTagName = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'

/** A decoded block selector. */
export type BlockRef =
  | { readonly kind: 'number'; readonly number: bigint }
  | { readonly kind: 'tag'; readonly tag: BlockTagName }
  | { readonly kind: 'hash'; readonly hash: Uint8Array; readonly requireCanonical: boolean }

/** One shared, frozen object per tag: decoding a tag allocates nothing. */
export const BLOCK_TAG: Readonly<Record<BlockTagName, BlockRef>> = Object.freeze({
  latest: Object.freeze({ kind: 'tag', tag: 'latest' }),
  earliest: Object.freeze({ kind: 'tag', tag: 'earliest' }),
  pending: Object.freeze({ kind: 'tag', tag: 'pending' }),
  safe: Object.freeze({ kind: 'tag', tag: 'safe' }),
  finalized: Object.freeze({ kind: 'tag', tag: 'finalized' }),
})

/** The default block of most state methods. */
export const LATEST: BlockRef = BLOCK_TAG.latest

/** Block numbers are int64 in geth. */
const MAX_BLOCK_NUMBER = (1n << 63n) - 1n

/**
 * geth's error when a BlockNumberOrHash names neither a number nor a hash (null, `{}`,
 * `{"requireCanonical":true}`): its UnmarshalJSON refuses them since v1.17.5 (go-ethereum #35271),
 * so -32602 with the `invalid argument N: ` prefix.
 */
export const NEITHER_BLOCK_NOR_HASH = 'must specify either BlockHash or BlockNumber'

function tagRef(s: string): BlockRef | undefined {
  switch (s) {
    case 'latest':
    case 'earliest':
    case 'pending':
    case 'safe':
    case 'finalized':
      return BLOCK_TAG[s]
    default:
      return undefined
  }
}

/**
 * rpc.BlockNumber.UnmarshalJSON: strips the quotes of a JSON string (any other JSON value is
 * read as its raw text, which never has a 0x prefix) and returns hexutil errors unwrapped.
 */
export function unmarshalBlockNumber(raw: unknown): BlockRef {
  if (typeof raw !== 'string') throw plainError('hex string without 0x prefix')
  const tag = tagRef(raw)
  if (tag !== undefined) return tag
  const n = plainHex(raw, decodeUint64)
  if (n > MAX_BLOCK_NUMBER) throw plainError('block number larger than int64')
  return { kind: 'number', number: n }
}

/** A block number or tag (geth `rpc.BlockNumber`). */
export const BlockNumber: ParamDecoder<BlockRef> = goDecoder(unmarshalBlockNumber)

const EIP1898_FIELDS = new FieldMatcher(['blockNumber', 'blockHash', 'requireCanonical'] as const)

/** geth's text for any failure inside the object form (it then retries the value as a string). */
const OBJECT_FORM_ERROR = 'json: cannot unmarshal object into Go value of type string'

function hashText(s: string): Uint8Array {
  return fixedText(s, 32, 'Hash')
}

/** rpc.BlockNumberOrHash.UnmarshalJSON. */
export function unmarshalBlockNumberOrHash(raw: unknown): BlockRef {
  // null decodes as an empty object in Go: it names no block
  if (raw === null) throw plainError(NEITHER_BLOCK_NOR_HASH)
  if (isPlainObject(raw)) return unmarshalEip1898(raw)
  if (typeof raw !== 'string') throw plainError(`json: cannot unmarshal ${jsonKind(raw)} into Go value of type string`)
  const tag = tagRef(raw)
  if (tag !== undefined) return tag
  if (raw.length === 66) return { kind: 'hash', hash: plainHex(raw, hashText), requireCanonical: false }
  const n = plainHex(raw, decodeUint64)
  if (n > MAX_BLOCK_NUMBER) throw plainError('blocknumber too high')
  return { kind: 'number', number: n }
}

function unmarshalEip1898(obj: Record<string, unknown>): BlockRef {
  let number: BlockRef | undefined
  let hash: Uint8Array | undefined
  let requireCanonical = false
  try {
    for (const key of Object.keys(obj)) {
      const v = obj[key]
      switch (EIP1898_FIELDS.field(key)) {
        case 'blockNumber':
          number = v === null ? undefined : unmarshalBlockNumber(v)
          break
        case 'blockHash':
          hash = v === null ? undefined : unmarshalHash(v)
          break
        case 'requireCanonical':
          if (typeof v === 'boolean') requireCanonical = v
          else if (v !== null) throw plainError(OBJECT_FORM_ERROR)
          break
      }
    }
  } catch (err) {
    if (err instanceof GoDecodeError) throw plainError(OBJECT_FORM_ERROR)
    throw err
  }
  if (number !== undefined && hash !== undefined) {
    throw plainError('cannot specify both BlockHash and BlockNumber, choose one or the other')
  }
  if (number !== undefined) return number
  if (hash !== undefined) return { kind: 'hash', hash, requireCanonical }
  throw plainError(NEITHER_BLOCK_NOR_HASH)
}

/**
 * A block number, tag, hash or EIP-1898 object (geth `rpc.BlockNumberOrHash`). null and an object
 * naming no block are refused (-32602 `must specify either BlockHash or BlockNumber`). Wrap in
 * optional() where geth takes a pointer (eth_call, eth_estimateGas): there null means the
 * default, while `{}` is still refused.
 */
export const BlockTag: ParamDecoder<BlockRef> = goDecoder(unmarshalBlockNumberOrHash)
