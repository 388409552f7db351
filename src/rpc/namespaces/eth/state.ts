/**
 * eth_ state reads at a block: balance, code, storage, nonce. Balance and nonce come without a
 * promise when the backend's account cache answers (the dispatcher then answers at once).
 */
import { setLengthLeft } from '@ethereumjs/util'
import { type AccountFields, type Backend, stateBlock } from '../../backend.js'
import { toData, toQuantity } from '../../../util/hex.js'
import { Address, BlockTag, LATEST, optional, StorageKey } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

/** Bytes of a storage word. */
const WORD_BYTES = 32

function balanceOf(account: AccountFields): string {
  return toQuantity(account.balance)
}

export const stateMethods: MethodTable<Backend> = {
  eth_getBalance: method([Address, optional(BlockTag, LATEST)], (b, [address, ref]) => {
    const account = b.account(stateBlock(b, ref), address)
    return account instanceof Promise ? account.then(balanceOf) : balanceOf(account)
  }),
  eth_getCode: method([Address, optional(BlockTag, LATEST)], async (b, [address, ref]) => {
    return toData(await b.state(stateBlock(b, ref)).code(address))
  }),
  eth_getStorageAt: method([Address, StorageKey, optional(BlockTag, LATEST)], async (b, [address, slot, ref]) => {
    const state = b.state(stateBlock(b, ref))
    const value = await state.storage(address, setLengthLeft(slot, WORD_BYTES))
    return toData(setLengthLeft(value, WORD_BYTES))
  }),
  eth_getTransactionCount: method([Address, optional(BlockTag, LATEST)], async (b, [address, ref]) => {
    const { nonce } = await b.account(stateBlock(b, ref), address)
    if (ref.kind === 'tag' && ref.tag === 'pending') return toQuantity(b.pendingNonce(address, nonce))
    return toQuantity(nonce)
  }),
}
