/**
 * The main thread's half of a speculated transaction, at its turn in the block: check that every
 * value it read on the parent state is what the block's state holds now (earlier transactions of
 * the block, fast-path transfers and system calls included), then replay its mutations in order.
 *
 *   readsHold(sm, reads) ─ all equal? ─yes─▶ applyOps(sm, ops, coinbase) ─▶ receipt from the run
 *                        └─ no ─▶ runTx as if nothing had been speculated
 *
 * Values, not keys, are compared: an earlier write that left a value as it was does not make a
 * conflict (the transaction would have read the same thing). recorder.ts says why equal reads make
 * the replay equal to runTx.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, equalsBytes, KECCAK256_RLP } from '@ethereumjs/util'
import {
  OP_CLEAR_STORAGE,
  OP_CREDIT_COINBASE,
  OP_DELETE_ACCOUNT,
  OP_MODIFY_ACCOUNT,
  OP_PUT_ACCOUNT,
  OP_PUT_CODE,
  OP_PUT_STORAGE,
  READ_ACCOUNT,
  type SeenAccount,
  type SpecOp,
  type SpecRead,
} from './types.js'

/** The account as the run saw it, its storage root only as empty or not (types.ts says why). */
function sameAccount(have: Account | undefined, seen: SeenAccount): boolean {
  if (have === undefined || seen === null) return have === undefined && seen === null
  return (
    have.nonce === seen[0] &&
    have.balance === seen[1] &&
    equalsBytes(have.codeHash, seen[3]) &&
    equalsBytes(have.storageRoot, KECCAK256_RLP) === equalsBytes(seen[2], KECCAK256_RLP)
  )
}

/** Replays a put account; one that kept its storage root keeps the root the block's state has for it. */
async function putAccount(sm: MerkleStateManager, address: Address, seen: SeenAccount, keepRoot: boolean): Promise<void> {
  if (seen === null) return sm.putAccount(address, undefined)
  let root = seen[2]
  if (keepRoot) {
    const current = await sm.getAccount(address)
    if (current === undefined) throw new Error(`replay: account ${address} missing where the run had it`)
    root = current.storageRoot
  }
  return sm.putAccount(address, new Account(seen[0], seen[1], root, seen[3]))
}

/** True when `sm` answers every read of the run as the parent state did. */
export async function readsHold(sm: MerkleStateManager, reads: readonly SpecRead[]): Promise<boolean> {
  for (const read of reads) {
    if (read[0] === READ_ACCOUNT) {
      if (!sameAccount(await sm.getAccount(new Address(read[1])), read[2])) return false
    } else if (!equalsBytes(await sm.getStorage(new Address(read[1]), read[2]), read[3])) {
      return false
    }
  }
  return true
}

/** Replays the run's mutations on `sm`, in order; the tip goes to `coinbase` as a delta. */
export async function applyOps(sm: MerkleStateManager, ops: readonly SpecOp[], coinbase: Address): Promise<void> {
  for (const op of ops) {
    switch (op[0]) {
      case OP_PUT_ACCOUNT:
        await putAccount(sm, new Address(op[1]), op[2], op[3])
        break
      case OP_DELETE_ACCOUNT:
        await sm.deleteAccount(new Address(op[1]))
        break
      case OP_PUT_STORAGE:
        await sm.putStorage(new Address(op[1]), op[2], op[3])
        break
      case OP_CLEAR_STORAGE:
        await sm.clearStorage(new Address(op[1]))
        break
      case OP_PUT_CODE:
        await sm.putCode(new Address(op[1]), op[2])
        break
      case OP_MODIFY_ACCOUNT:
        await sm.modifyAccountFields(new Address(op[1]), op[2])
        break
      case OP_CREDIT_COINBASE: {
        const miner = (await sm.getAccount(coinbase)) ?? new Account()
        miner.balance += op[1]
        await sm.putAccount(coinbase, miner)
        break
      }
    }
  }
}
