/**
 * Block-level system writes that run before a block's transactions (as geth and
 * ethereumjs' runBlock do), when the system contract has code in state:
 * EIP-4788 (parent beacon block root ring buffer, Cancun) and EIP-2935 (parent block hash
 * history, Prague). Both are no-ops on a chain whose genesis does not deploy the contracts.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { bigIntToBytes, createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'

export const HISTORY_STORAGE_ADDRESS = createAddressFromString('0x0000F90827F1C53A10CB7A02335B175320002935')
export const BEACON_ROOTS_ADDRESS = createAddressFromString('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02')
/** EIP-2935 ring size and EIP-4788 ring size. */
export const HISTORY_SERVE_WINDOW = 8191n
export const BEACON_ROOTS_LENGTH = 8191n

export async function applyPreBlockSystemCalls(
  sm: MerkleStateManager,
  common: Common,
  number: bigint,
  timestamp: bigint,
  parentHash: Uint8Array,
  parentBeaconBlockRoot: Uint8Array | undefined,
): Promise<void> {
  if (common.isActivatedEIP(4788) && parentBeaconBlockRoot !== undefined) {
    const code = await sm.getCode(BEACON_ROOTS_ADDRESS)
    if (code.length > 0) {
      const index = timestamp % BEACON_ROOTS_LENGTH
      await sm.putStorage(BEACON_ROOTS_ADDRESS, setLengthLeft(bigIntToBytes(index), 32), bigIntToBytes(timestamp))
      await sm.putStorage(
        BEACON_ROOTS_ADDRESS,
        setLengthLeft(bigIntToBytes(index + BEACON_ROOTS_LENGTH), 32),
        parentBeaconBlockRoot,
      )
    }
  }
  if (common.isActivatedEIP(2935) && number > 0n) {
    const code = await sm.getCode(HISTORY_STORAGE_ADDRESS)
    if (code.length > 0) {
      const key = setLengthLeft(bigIntToBytes((number - 1n) % HISTORY_SERVE_WINDOW), 32)
      await sm.putStorage(HISTORY_STORAGE_ADDRESS, key, parentHash)
    }
  }
}
