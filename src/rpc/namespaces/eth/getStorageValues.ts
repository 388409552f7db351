/** eth_getStorageValues: many storage slots of many accounts at one block, in one state read. */
import { setLengthLeft } from '@ethereumjs/util'
import { type Backend, stateBlock } from '../../backend.js'
import { ClientLimitExceededError, InvalidParamsError } from '../../errors.js'
import { toData } from '../../../util/hex.js'
import { BlockTag, LATEST, optional } from '../../params/index.js'
import { StorageRequests } from '../../params/storageRequests.js'
import { method, type MethodTable } from '../../types.js'

/** Most slots one call may read (geth's maxGetStorageSlots). */
export const MAX_GET_STORAGE_SLOTS = 1024
/** Bytes of a storage word. */
const WORD_BYTES = 32

export const getStorageValuesMethods: MethodTable<Backend> = {
  eth_getStorageValues: method([StorageRequests, optional(BlockTag, LATEST)], async (b, [requests, ref]) => {
    let total = 0
    for (const r of requests) {
      total += r.slots.length
      if (total > MAX_GET_STORAGE_SLOTS) {
        throw new ClientLimitExceededError(`too many slots (max ${MAX_GET_STORAGE_SLOTS})`)
      }
    }
    if (total === 0) throw new InvalidParamsError('empty request')
    const state = b.state(stateBlock(b, ref))
    const out: Record<string, string[]> = {}
    for (const { address, slots } of requests) {
      const values: string[] = []
      for (const slot of slots) values.push(toData(setLengthLeft(await state.storage(address, slot), WORD_BYTES)))
      out[address] = values
    }
    return out
  }),
}
