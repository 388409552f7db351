/** eth_getStorageValues: many storage slots of many accounts at one block, in one state read. */
import { createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import type { Backend } from '../../backend.js'
import { InvalidParamsError, RpcError } from '../../errors.js'
import { toData } from '../../hex.js'
import { type BlockRef, BlockTag, LATEST, optional } from '../../params/index.js'
import { type StorageRequest, StorageRequests } from '../../params/storageRequests.js'
import type { MethodTable } from '../../types.js'

/** Most slots one call may read (geth's maxGetStorageSlots). */
export const MAX_GET_STORAGE_SLOTS = 1024
/** geth's code for a request over a client limit (errCodeClientLimitExceeded). */
export const CLIENT_LIMIT_EXCEEDED = -38026

export const getStorageValuesMethods: MethodTable<Backend> = {
  eth_getStorageValues: {
    params: [StorageRequests, optional(BlockTag, LATEST)],
    handler: async (b, [requestsRaw, ref]) => {
      const requests = requestsRaw as StorageRequest[]
      let total = 0
      for (const r of requests) {
        total += r.slots.length
        if (total > MAX_GET_STORAGE_SLOTS) {
          throw new RpcError(CLIENT_LIMIT_EXCEEDED, `too many slots (max ${MAX_GET_STORAGE_SLOTS})`)
        }
      }
      if (total === 0) throw new InvalidParamsError('empty request')
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      const out: Record<string, string[]> = {}
      for (const { address, slots } of requests) {
        const account = createAddressFromString(address)
        const values: string[] = []
        for (const slot of slots) values.push(toData(setLengthLeft(await state.getStorage(account, slot), 32)))
        out[address] = values
      }
      return out
    },
  },
}
