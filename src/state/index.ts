/**
 * State access. World state is a Merkle-Patricia trie over RocksDB (TrieStore); a reader is
 * a MerkleStateManager rooted at a block's state root. Roots are immutable, so any number of
 * readers at old roots can run while the block builder writes new nodes.
 */
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import type { Database } from '../chain/db.js'
import { TrieStore } from './trieStore.js'

export { TrieStore } from './trieStore.js'

/** A state manager whose writes go to `store`'s overlay (flushed by the block commit). */
export function createStateManager(store: TrieStore, common: Common, root?: Uint8Array): MerkleStateManager {
  const trie = new MerklePatriciaTrie({
    db: store,
    useKeyHashing: true,
    valueEncoding: 'view',
    common,
    ...(root ? { root } : {}),
  })
  return new MerkleStateManager({ trie, common })
}

/** A throw-away state manager at `root`: reads RocksDB, keeps its writes in memory only. */
export function stateAt(db: Database, common: Common, root: Uint8Array): MerkleStateManager {
  return createStateManager(new TrieStore(db), common, root)
}
