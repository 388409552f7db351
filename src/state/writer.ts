/**
 * WriterStateManager: the block builder's state manager. It remembers the accounts it wrote
 * since its last seed, so that once a block is committed their values — already in its write
 * caches — can prime the new root's flat read cache (readCache.ts). Without that, the first read
 * of every account a block touched (the pool re-reading each sender's nonce and balance for the
 * next transactions, eth_getBalance at the new head) walks the trie again.
 *
 * Storage writes and code reach the account itself at the flush (a new storage root or code
 * hash goes through putAccount), so recording putAccount and deleteAccount sees every account
 * the block changed.
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import type { Account, Address } from '@ethereumjs/util'
import type { Database } from '../chain/db.js'
import { readCacheFor } from './readCache.js'

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

export class WriterStateManager extends MerkleStateManager {
  /** Accounts written since the last seed (hex → address). */
  readonly #written = new Map<string, Address>()

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.#written.set(hexOf(address.bytes), address)
    return super.putAccount(address, account)
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.#written.set(hexOf(address.bytes), address)
    return super.deleteAccount(address)
  }

  /**
   * Puts the accounts written since the last call into `db`'s read cache of `root`, as this state
   * holds them now, and forgets them. Only right after this state was committed as `root`: every
   * checkpoint closed and flushed, so its caches hold exactly the state at `root`.
   */
  seedReadCache(db: Database, root: Uint8Array): void {
    const accounts = this._caches?.account
    if (this._checkpointCount === 0 && accounts !== undefined) {
      const cache = readCacheFor(db, root)
      for (const [hex, address] of this.#written) {
        const elem = accounts.get(address)
        // evicted from the LRU: left to a trie read
        if (elem !== undefined) cache.accounts.set(hex, elem.accountRLP ?? null)
      }
    }
    this.#written.clear()
  }
}
