/**
 * Param decoders of the dev test controls (cheats.ts). anvil reads its numbers as alloy's U256 /
 * u64, which take a JSON number, a 0x hex string (leading zeros allowed) or a decimal string;
 * `cast rpc anvil_setBalance ADDR 1000` sends a bare number, viem a hex string. The decoders take
 * all three, and refuse a JSON number too large to be exact (JSON.parse has already rounded it).
 */
import { hasHexPrefix, isHexDigits, decodeHexInto } from '../../../util/hex.js'
import { InvalidParamsError } from '../../errors.js'
import { goDecoder } from '../../params/index.js'
import type { ParamDecoder } from '../../types.js'

const MAX_U256 = (1n << 256n) - 1n
const MAX_U64 = (1n << 64n) - 1n
const WORD_BYTES = 32
const DECIMAL_RE = /^[0-9]+$/

/** An unsigned integer up to `max` from a JSON number, a 0x hex string or a decimal string. */
function unsignedInteger(raw: unknown, max: bigint, typeName: string): bigint {
  let n: bigint | undefined
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw)) {
      throw new InvalidParamsError(
        `invalid ${typeName} ${raw}: a JSON number above 2^53 is not exact, send it as a hex string`,
      )
    }
    n = BigInt(raw)
  } else if (typeof raw === 'string') {
    const hex = hasHexPrefix(raw)
    const digits = hex ? raw.slice(2) : raw
    if (digits !== '' && (hex ? isHexDigits(digits, 0) : DECIMAL_RE.test(digits))) {
      n = BigInt(hex ? `0x${digits}` : digits)
    }
  }
  if (n === undefined || n < 0n) {
    throw new InvalidParamsError(`invalid ${typeName} ${JSON.stringify(raw)}: expected a hex (0x…) or decimal integer`)
  }
  if (n > max) throw new InvalidParamsError(`invalid ${typeName} ${JSON.stringify(raw)}: larger than ${typeName}`)
  return n
}

/** A 256-bit unsigned integer (alloy's U256): balances. */
export const U256: ParamDecoder<bigint> = goDecoder((raw) => unsignedInteger(raw, MAX_U256, 'U256'))

/** A 64-bit unsigned integer: nonces, block counts, seconds, timestamps. */
export const U64: ParamDecoder<bigint> = goDecoder((raw) => unsignedInteger(raw, MAX_U64, 'u64'))

/**
 * A storage word (anvil_setStorageAt's value; also its slot): a hex string of at most 32 bytes,
 * read as left-padded (anvil wants exactly 32; a shorter value means the same number).
 */
export const StorageWord: ParamDecoder<Uint8Array> = goDecoder((raw) => {
  const s = typeof raw === 'string' && hasHexPrefix(raw) ? raw.slice(2) : undefined
  if (s === undefined || !isHexDigits(s, 0) || s.length > WORD_BYTES * 2) {
    throw new InvalidParamsError(`invalid storage word ${JSON.stringify(raw)}: expected 0x and at most 32 bytes of hex`)
  }
  const even = s.length % 2 === 0 ? s : `0${s}`
  const out = new Uint8Array(WORD_BYTES)
  decodeHexInto(even, 0, out.subarray(WORD_BYTES - even.length / 2))
  return out
})

/** What evm_mine takes: nothing, a timestamp, or `{timestamp?, blocks?}` (anvil's MineOptions; viem's ganache mode sends `{blocks}`). */
export interface EvmMineParams {
  timestamp: bigint | undefined
  blocks: bigint
}

const MINE_OPTION_KEYS = new Set(['timestamp', 'blocks'])

export const EvmMineOptions: ParamDecoder<EvmMineParams> = goDecoder((raw) => {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const o = raw as Record<string, unknown>
    const unknown = Object.keys(o).find((k) => !MINE_OPTION_KEYS.has(k))
    if (unknown !== undefined)
      throw new InvalidParamsError(`unknown field ${JSON.stringify(unknown)} of evm_mine's options`)
    return {
      timestamp: o.timestamp == null ? undefined : U64.decode(o.timestamp),
      blocks: o.blocks == null ? 1n : U64.decode(o.blocks),
    }
  }
  return { timestamp: U64.decode(raw), blocks: 1n }
})
