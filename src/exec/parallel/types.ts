/**
 * What crosses between the main thread and a speculation worker (structured clone: plain arrays,
 * bigints and byte arrays only). See index.ts for the flow.
 */
import type { LogTuple } from '../../chain/receipt.js'

/** An account as a transaction saw it first: [nonce, balance, storageRoot, codeHash], or null when absent. */
export type SeenAccount = [nonce: bigint, balance: bigint, storageRoot: Uint8Array, codeHash: Uint8Array] | null

/**
 * One entry of a read set: the first value the transaction got for a key, before it wrote that
 * key itself. Accounts also stand for their code (code is found by the account's code hash).
 *
 * An account's storage root is compared only as empty or not: ethereumjs writes a slot through to
 * the account's storage trie at once, so the root in the block's state moves with every earlier
 * write to the contract's storage, while the EVM only ever asks whether it is empty (collision
 * checks); the slots themselves are read and compared one by one.
 */
export type SpecRead =
  | [kind: typeof READ_ACCOUNT, address: Uint8Array, account: SeenAccount]
  | [kind: typeof READ_SLOT, address: Uint8Array, slot: Uint8Array, value: Uint8Array]

export const READ_ACCOUNT = 0
export const READ_SLOT = 1

/**
 * One state-manager mutation the transaction made and kept (mutations undone by a reverted
 * checkpoint are gone), in the order it made them; replayed in that order on the block's state.
 * Only outermost calls are recorded: a putCode's own putAccount is the putCode's business.
 * A put account that keeps the storage root it had (`keepStorageRoot`) is replayed with the root
 * the block's state has for it then (the root moved with the block's earlier storage writes).
 */
export type SpecOp =
  | [kind: typeof OP_PUT_ACCOUNT, address: Uint8Array, account: SeenAccount, keepStorageRoot: boolean]
  | [kind: typeof OP_DELETE_ACCOUNT, address: Uint8Array]
  | [kind: typeof OP_PUT_STORAGE, address: Uint8Array, slot: Uint8Array, value: Uint8Array]
  | [kind: typeof OP_CLEAR_STORAGE, address: Uint8Array]
  | [kind: typeof OP_PUT_CODE, address: Uint8Array, code: Uint8Array]
  | [kind: typeof OP_MODIFY_ACCOUNT, address: Uint8Array, fields: AccountFields]
  | [kind: typeof OP_CREDIT_COINBASE, amount: bigint]

export const OP_PUT_ACCOUNT = 0
export const OP_DELETE_ACCOUNT = 1
export const OP_PUT_STORAGE = 2
export const OP_CLEAR_STORAGE = 3
export const OP_PUT_CODE = 4
export const OP_MODIFY_ACCOUNT = 5
/** The tip runTx pays the coinbase: a delta on whatever the coinbase holds when it is applied. */
export const OP_CREDIT_COINBASE = 6

export interface AccountFields {
  nonce?: bigint
  balance?: bigint
  storageRoot?: Uint8Array
  codeHash?: Uint8Array
}

/** A transaction run speculatively on the parent state, and what it did. */
export interface SpeculatedRun {
  ok: true
  reads: SpecRead[]
  ops: SpecOp[]
  /** runTx's totalGasSpent. */
  gasUsed: bigint
  /** 1 success, 0 the EVM stopped with an exception (revert, out of gas, …). */
  status: 0 | 1
  logs: LogTuple[]
  createdAddress: Uint8Array | undefined
}

/** A transaction the speculation cannot vouch for (runTx threw, or an effect this module does not model). */
export interface SpeculationMiss {
  ok: false
  why: string
}

export type SpeculatedTx = SpeculatedRun | SpeculationMiss

/** A run of transactions of one sender, in nonce (block) order: speculated one after the other. */
export interface SpecChain {
  /** Serialized transactions (tx.serialize()). */
  txs: Uint8Array[]
  /** The sender's public key, when the main thread has it recovered already (saves an ecrecover per transaction). */
  senderPubKey: Uint8Array | undefined
}

/** A worker's task: some chains of one block, all on the same parent state. */
export interface SpeculateTask {
  /** State root of the parent block. */
  root: Uint8Array
  /** The parent's number (the worker's chain store must know it, for BLOCKHASH). */
  head: bigint
  /** hardfork the block runs under. */
  hardfork: string
  /** The block's header as executeTransactions builds it before execution (RLP), for the EVM's block environment. */
  header: Uint8Array
  chains: SpecChain[]
}

/** Per chain, per transaction (a chain's list ends early where a transaction threw). */
export type SpeculateResult = SpeculatedTx[][]
