/**
 * Direct edits of a state (anvil_setBalance, anvil_setCode, anvil_setStorageAt, anvil_setNonce on
 * the dev chain): the edits applied to the state at `root`, giving a new root whose trie nodes wait
 * in the TrieStore's overlay until the caller commits them (ChainStore.commitStateEdit).
 *
 *   root ─▶ state manager over `trie` ─▶ each edit (putAccount / putCode / putStorage)
 *        ─▶ an account left empty is removed (EIP-161: the trie holds no empty accounts) ─▶ new root
 *
 * What always holds: the old root and its nodes are untouched (nodes are content-addressed), so a
 * reader at the old root, or a block replayed from it, is not disturbed; the same edits on the
 * same root always give the same new root.
 */
import type { Common } from '@ethereumjs/common'
import {
  Account,
  type Address,
  createAddressFromString,
  equalsBytes,
  KECCAK256_RLP,
  setLengthLeft,
} from '@ethereumjs/util'
import { createStateManager } from './index.js'
import type { TrieStore } from './trieStore.js'

/** One edit of one account; `address` is a 0x hex string. */
export type StateEdit =
  | { kind: 'balance'; address: string; balance: bigint }
  | { kind: 'nonce'; address: string; nonce: bigint }
  | { kind: 'code'; address: string; code: Uint8Array }
  /** `slot` and `value` are at most 32 bytes (read as left-padded); a zero value clears the slot. */
  | { kind: 'storage'; address: string; slot: Uint8Array; value: Uint8Array }

/** Bytes of a storage slot key and value. */
const WORD_BYTES = 32

/** editState applies `edits` in order to the state at `root` and returns the new root (its nodes in `trie`). */
export async function editState(
  trie: TrieStore,
  common: Common,
  root: Uint8Array,
  edits: readonly StateEdit[],
): Promise<Uint8Array> {
  const sm = createStateManager(trie, common, root)
  const touched = new Map<string, Address>()
  for (const edit of edits) {
    const address = createAddressFromString(edit.address)
    touched.set(address.toString(), address)
    const account = (await sm.getAccount(address)) ?? new Account()
    switch (edit.kind) {
      case 'balance':
        account.balance = edit.balance
        await sm.putAccount(address, account)
        break
      case 'nonce':
        account.nonce = edit.nonce
        await sm.putAccount(address, account)
        break
      case 'code':
        await sm.putAccount(address, account)
        await sm.putCode(address, edit.code)
        break
      case 'storage':
        await sm.putAccount(address, account)
        await sm.putStorage(address, setLengthLeft(edit.slot, WORD_BYTES), edit.value)
        break
    }
  }
  // code hashes and storage roots reach the accounts at the flush: only then is emptiness known
  await sm.flush()
  for (const address of touched.values()) {
    const account = await sm.getAccount(address)
    // KECCAK256_RLP: the root of an empty storage trie
    if (account?.isEmpty() === true && equalsBytes(account.storageRoot, KECCAK256_RLP)) {
      await sm.deleteAccount(address)
    }
  }
  return sm.getStateRoot()
}
