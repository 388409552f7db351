/**
 * RecordingStateManager: the state a speculation worker runs transactions on — the parent block's
 * state (a SharedReadStateManager: flat per-root caches, writes held in ethereumjs' Caches) —
 * recording, between begin() and end(), what one transaction read and what it changed.
 *
 *   read set:  for every key (an account; a storage slot) the FIRST value the transaction got,
 *              before it wrote that key itself — at that point the value came from the state the
 *              transaction started on. A write to a key not read yet reads it first, so blind
 *              writes are covered too. Code counts as its account (found by its code hash).
 *   op log:    every outermost mutation (putAccount, deleteAccount, putStorage, clearStorage,
 *              putCode, modifyAccountFields) in order; a reverted checkpoint drops the ops made
 *              since it, exactly as ethereumjs' caches drop their effects.
 *
 * Why that suffices (validate.ts relies on it): runTx is a deterministic function of the
 * transaction, the block environment and the answers the state manager gives. If every recorded
 * first answer is still what the block's state gives at the transaction's turn, every later answer
 * (a function of first answers and the transaction's own ops) is too, so runTx on the block's state
 * would make the same ops; replaying the log leaves the block's state as runTx would.
 *
 * The coinbase: runTx credits the tip to the coinbase after the EVM call returns (read, add, put).
 * That credit is recorded as a delta (OP_CREDIT_COINBASE), not as a read, so transactions do not
 * all conflict on the coinbase. A genuine access of the coinbase (BALANCE, being sender or
 * recipient, anything during the call) is an ordinary read and is validated like any other.
 * Anything around the coinbase that the delta would not reproduce (a zero tip: EIP-161 may delete
 * an empty coinbase; a second write after the credit) makes the run a miss.
 */
import type { Common } from '@ethereumjs/common'
import { Caches } from '@ethereumjs/statemanager'
import { type Account, type Address, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util'
import type { Database } from '../../chain/db.js'
import { readCacheFor } from '../../state/readCache.js'
import { SharedReadStateManager, trieAt } from '../../state/sharedRead.js'
import {
  type AccountFields,
  OP_CLEAR_STORAGE,
  OP_CREDIT_COINBASE,
  OP_DELETE_ACCOUNT,
  OP_MODIFY_ACCOUNT,
  OP_PUT_ACCOUNT,
  OP_PUT_CODE,
  OP_PUT_STORAGE,
  READ_ACCOUNT,
  READ_SLOT,
  type SeenAccount,
  type SpecOp,
  type SpecRead,
} from './types.js'
import { hexOf } from '../../util/bytes.js'

export function seenAccount(account: Account | undefined): SeenAccount {
  return account === undefined ? null : [account.nonce, account.balance, account.storageRoot, account.codeHash]
}

/** Where the coinbase stands in the running transaction: not accessed yet; accessed by the
 * transaction itself (an ordinary key); read by runTx's credit (its put comes next); credited
 * (runTx's cleanup may still look at it). */
const UNTOUCHED = 0
const READ = 1
const CREDITING = 2
const CREDITED = 3

/** What one transaction read and did. `miss` is set when the run cannot be replayed as a delta. */
export interface Recording {
  reads: SpecRead[]
  ops: SpecOp[]
  miss: string | undefined
}

export class RecordingStateManager extends SharedReadStateManager {
  #on = false
  readonly #seen = new Set<string>()
  #reads: SpecRead[] = []
  #ops: SpecOp[] = []
  readonly #marks: number[] = []
  /** Depth of mutations in progress (only depth 0 is recorded). */
  #inOp = 0
  #coinbaseHex = ''
  #coinbase: number = UNTOUCHED
  /** The coinbase as the credit read it (a copy: runTx adds to the object it got). */
  #creditBase: SeenAccount = null
  /** The transaction's top-level EVM call returned: what follows is runTx's settlement. */
  #settling = false
  #miss: string | undefined

  /** Starts recording one transaction of a block whose coinbase is `coinbase`. */
  begin(coinbase: Uint8Array): void {
    this.#on = true
    this.#seen.clear()
    this.#reads = []
    this.#ops = []
    this.#marks.length = 0
    this.#inOp = 0
    this.#coinbaseHex = hexOf(coinbase)
    this.#coinbase = UNTOUCHED
    this.#creditBase = null
    this.#settling = false
    this.#miss = undefined
  }

  /** The transaction's top-level EVM call returned (speculate.ts hooks evm.runCall). */
  callReturned(): void {
    if (this.#on) this.#settling = true
  }

  /** Stops recording and hands over what was recorded. */
  end(): Recording {
    this.#on = false
    const miss = this.#miss ?? (this.#coinbase === CREDITING ? 'coinbase read without its credit' : undefined)
    return { reads: this.#reads, ops: this.#ops, miss }
  }

  #firstRead(key: string): boolean {
    if (this.#seen.has(key)) return false
    this.#seen.add(key)
    return true
  }

  /** A write to the coinbase: fine while it is an ordinary key, a miss around the credit. */
  #writesCoinbase(address: Address): void {
    if (this.#coinbase >= CREDITING && hexOf(address.bytes) === this.#coinbaseHex)
      this.#miss ??= 'coinbase written around the tip credit'
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const account = await super.getAccount(address)
    if (!this.#on) return account
    const key = hexOf(address.bytes)
    if (key === this.#coinbaseHex && this.#coinbase !== READ) {
      if (this.#coinbase === CREDITED) return account
      if (this.#coinbase === CREDITING) {
        this.#miss ??= 'coinbase read twice in the tip credit'
        return account
      }
      if (this.#settling && this.#inOp === 0) {
        this.#coinbase = CREDITING
        this.#creditBase = seenAccount(account)
        return account
      }
      this.#coinbase = READ
    }
    if (this.#firstRead(key)) this.#reads.push([READ_ACCOUNT, address.bytes, seenAccount(account)])
    return account
  }

  override async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    const value = await super.getStorage(address, slot)
    if (this.#on && this.#firstRead(hexOf(address.bytes) + hexOf(slot))) this.#reads.push([READ_SLOT, address.bytes, slot, value])
    return value
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    // code is found through the account's code hash: reading the account records it
    if (this.#on) await this.getAccount(address)
    return super.getCode(address)
  }

  override async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (!this.#on || this.#inOp > 0) return super.putAccount(address, account)
    if (this.#coinbase === CREDITING && hexOf(address.bytes) === this.#coinbaseHex) {
      this.#credit(account)
    } else {
      this.#writesCoinbase(address)
      const before = await this.getAccount(address)
      // the root it had (a nonce or balance change): replayed with the block's root for it
      const keepRoot = account !== undefined && before !== undefined && equalsBytes(account.storageRoot, before.storageRoot)
      if (account !== undefined && !keepRoot && !equalsBytes(account.storageRoot, KECCAK256_RLP))
        this.#miss ??= 'account put with a storage root of its own'
      this.#ops.push([OP_PUT_ACCOUNT, address.bytes, seenAccount(account), keepRoot])
    }
    return this.#op(() => super.putAccount(address, account))
  }

  /** runTx's put of the credited coinbase: recorded as the amount added, when that is all it did. */
  #credit(account: Account | undefined): void {
    this.#coinbase = CREDITED
    const base = this.#creditBase
    const same =
      account !== undefined &&
      (base === null
        ? account.nonce === 0n && !account.isContract()
        : account.nonce === base[0] && equalsBytes(account.storageRoot, base[2]) && equalsBytes(account.codeHash, base[3]))
    const amount = account === undefined ? 0n : account.balance - (base?.[1] ?? 0n)
    // a zero tip leaves the coinbase as it was, and EIP-161 then deletes it if it is empty: depends on its value
    if (!same || amount <= 0n) this.#miss ??= 'tip credit not a plain positive delta'
    this.#ops.push([OP_CREDIT_COINBASE, amount])
  }

  override async deleteAccount(address: Address): Promise<void> {
    if (!this.#on || this.#inOp > 0) return super.deleteAccount(address)
    this.#writesCoinbase(address)
    await this.getAccount(address)
    this.#ops.push([OP_DELETE_ACCOUNT, address.bytes])
    return this.#op(() => super.deleteAccount(address))
  }

  override async putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    if (!this.#on || this.#inOp > 0) return super.putStorage(address, slot, value)
    this.#writesCoinbase(address)
    await this.getStorage(address, slot)
    this.#ops.push([OP_PUT_STORAGE, address.bytes, slot, value])
    return this.#op(() => super.putStorage(address, slot, value))
  }

  override async clearStorage(address: Address): Promise<void> {
    if (!this.#on || this.#inOp > 0) return super.clearStorage(address)
    this.#writesCoinbase(address)
    this.#ops.push([OP_CLEAR_STORAGE, address.bytes])
    return this.#op(() => super.clearStorage(address))
  }

  override async putCode(address: Address, code: Uint8Array): Promise<void> {
    if (!this.#on || this.#inOp > 0) return super.putCode(address, code)
    this.#writesCoinbase(address)
    this.#ops.push([OP_PUT_CODE, address.bytes, code])
    return this.#op(() => super.putCode(address, code))
  }

  override async modifyAccountFields(address: Address, fields: Parameters<SharedReadStateManager['modifyAccountFields']>[1]): Promise<void> {
    if (!this.#on || this.#inOp > 0) return super.modifyAccountFields(address, fields)
    this.#writesCoinbase(address)
    if (fields.storageRoot !== undefined) this.#miss ??= 'storage root set directly'
    this.#ops.push([OP_MODIFY_ACCOUNT, address.bytes, { ...fields } as AccountFields])
    return this.#op(() => super.modifyAccountFields(address, fields))
  }

  async #op(run: () => Promise<void>): Promise<void> {
    this.#inOp++
    try {
      await run()
    } finally {
      this.#inOp--
    }
  }

  override async checkpoint(): Promise<void> {
    if (this.#on) this.#marks.push(this.#ops.length)
    return super.checkpoint()
  }

  override async commit(): Promise<void> {
    if (this.#on) this.#marks.pop()
    return super.commit()
  }

  override async revert(): Promise<void> {
    if (this.#on) {
      const mark = this.#marks.pop()
      if (mark !== undefined && mark < this.#ops.length) {
        // the tip credit cannot be undone and redone as a delta
        if (this.#ops.slice(mark).some((op) => op[0] === OP_CREDIT_COINBASE)) this.#miss ??= 'tip credit reverted'
        this.#ops.length = mark
      }
    }
    return super.revert()
  }
}

/** A recording state at `root`, reading through the root's shared caches in this thread. */
export function recordingStateAt(db: Database, common: Common, root: Uint8Array): RecordingStateManager {
  const shared = readCacheFor(db, root)
  shared.trie ??= trieAt(db, common, root)
  return new RecordingStateManager({ trie: shared.trie, common, caches: new Caches() }, shared, db)
}
