/**
 * eth_getStorageValues' request map (geth `map[common.Address][]common.Hash`): object keys are
 * addresses (map keys go through common.Address.UnmarshalText), values arrays of 32-byte hashes.
 */
import type { ParamDecoder } from '../types.js'
import { goDecoder } from './decoder.js'
import { fixedText, isPlainObject, kindMismatch, plainHex, unmarshalHash } from './gojson.js'

export interface StorageRequest {
  /** Lowercase 0x address. */
  address: string
  slots: Uint8Array[]
}

function addressKey(key: string): string {
  plainHex(key, (s) => fixedText(s, 20, 'common.Address'))
  return `0x${key.slice(2).toLowerCase()}`
}

export const StorageRequests: ParamDecoder<StorageRequest[]> = goDecoder((raw) => {
  if (raw === null) return []
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'map[common.Address][]common.Hash')
  const out: StorageRequest[] = []
  for (const [key, value] of Object.entries(raw)) {
    const address = addressKey(key)
    if (value === null) {
      out.push({ address, slots: [] })
      continue
    }
    if (!Array.isArray(value)) throw kindMismatch(value, '[]common.Hash')
    out.push({ address, slots: value.map(unmarshalHash) })
  }
  return out
})
