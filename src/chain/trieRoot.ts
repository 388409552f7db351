/**
 * Roots of the per-block ordered tries (transactions, receipts, withdrawals): key =
 * RLP(index), value = the item's consensus encoding, in a throw-away in-memory trie.
 */
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { keccak256 } from '../util/crypto.js'

export const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex')
export const EMPTY_UNCLES_HASH = Buffer.from('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347', 'hex')

export async function orderedTrieRoot(items: Uint8Array[]): Promise<Uint8Array> {
  if (items.length === 0) return EMPTY_TRIE_ROOT
  const trie = new MerklePatriciaTrie({ useKeyHashing: false, common: { customCrypto: { keccak256 } } })
  for (let i = 0; i < items.length; i++) {
    await trie.put(RLP.encode(bigIntToUnpaddedBytes(BigInt(i))), items[i] as Uint8Array)
  }
  return trie.root()
}
