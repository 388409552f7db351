/**
 * The persisted map block hash → edited state root of a dev chain (anvil_setBalance and its
 * kin, src/consensus/devControl.ts). anvil edits its latest state in place; ibex's states are
 * tries addressed by root, so an edit makes a new root that becomes the *effective* state of the
 * head block:
 *
 *   edit ─▶ new root (src/state/editState.ts) ─▶ ONE batch: its trie nodes + meta `state-edit:<hash>` = root
 *        ─▶ ChainStore serves the block with header.stateRoot = the edited root
 *        ─▶ every reader of "the state of block X" (eth_getBalance, eth_call and traces on the
 *           workers, the pool, the builder of the next block) reads header.stateRoot, so sees it
 *
 * The block keeps its hash and its stored (sealed) header: `headerRaw[3]` is the root it was
 * sealed with, which eth_getBlock shows (as anvil's header does not change either). A block built
 * on an edited block starts from the edited root, so replaying it (debug_trace*) gives its own
 * sealed root again. What does not hold any more: re-executing the *edited* block's transactions
 * from its parent does not give the edited root, so a chain with edits cannot be re-imported from
 * an export (`ibex import` stops at the first block built on an edited one: state root mismatch)
 * nor followed by peers.
 *
 * The `state-edits` marker is written before any edit (when the node enables the dev methods),
 * and ChainStores opened on the database read it once: only then do they look for edits on every
 * block they hand out (workers' stores must notice an edit made after they cached the block).
 */
import type { Database, WriteBatch } from '../db/db.js'

/** Meta key present once the chain may hold state edits. */
const MARKER_KEY = Buffer.from('state-edits')
const EDIT_PREFIX = 'state-edit:'

function editKey(blockHash: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(EDIT_PREFIX), blockHash])
}

/** True when the chain in `db` may hold state edits. */
export function stateEditsEnabled(db: Database): boolean {
  return db.getSync('meta', MARKER_KEY) !== undefined
}

/** Marks the chain as one that may hold state edits (idempotent). */
export function markStateEdits(batch: WriteBatch): void {
  batch.put('meta', MARKER_KEY, Uint8Array.of(1))
}

/** The edited state root of the block, or undefined when its state was never edited. */
export function editedStateRoot(db: Database, blockHash: Uint8Array): Uint8Array | undefined {
  return db.getSync('meta', editKey(blockHash))
}

/** Records `root` as the effective state root of the block (replacing an earlier edit of it). */
export function putEditedStateRoot(batch: WriteBatch, blockHash: Uint8Array, root: Uint8Array): void {
  batch.put('meta', editKey(blockHash), root)
}
