/**
 * eth_createAccessList: the EIP-2930 access list a message would touch, found as geth finds it
 * (internal/ethapi AccessList): run the message, collect what it warmed, run again with that
 * list, until the list stops changing. The sender, the recipient (or the created contract) and
 * the precompiles are never listed: they are warm anyway.
 */
import { getActivePrecompiles } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import { Address, bigIntToUnpaddedBytes, bytesToHex } from '@ethereumjs/util'
import { stateAt } from '../state/index.js'
import { keccak256 } from '../util/crypto.js'
import { type CallLimits, callGas } from './call.js'
import { type CallRequest, type Env, runMessage } from './runMessage.js'

/** Rounds of re-execution before giving up on a list that keeps growing (geth loops until stable). */
export const MAX_ACCESS_LIST_ROUNDS = 32

export interface AccessListEntry {
  address: string
  storageKeys: string[]
}

export interface AccessListResult {
  accessList: AccessListEntry[]
  gasUsed: bigint
  /** The execution error (e.g. `execution reverted`), when the message fails. */
  error: string | undefined
}

function key(list: AccessListEntry[]): string {
  return list
    .map((e) => `${e.address}:${[...e.storageKeys].sort().join(',')}`)
    .sort()
    .join(';')
}

export async function createAccessList(env: Env, req: CallRequest, limits: CallLimits): Promise<AccessListResult> {
  const gas = callGas(req, limits, env.block)
  const from = req.from ?? new Uint8Array(20)
  const excluded = new Set<string>([bytesToHex(from)])
  if (req.to !== undefined) excluded.add(bytesToHex(req.to))
  else {
    // a creation: the new contract's address is the sender's and its nonce's
    const state = stateAt(env.db, env.common, env.block.header.stateRoot)
    const nonce = req.nonce ?? (await state.getAccount(new Address(from)))?.nonce ?? 0n
    excluded.add(bytesToHex(keccak256(RLP.encode([from, bigIntToUnpaddedBytes(nonce)])).subarray(12)))
  }
  for (const address of getActivePrecompiles(env.block.header.common).keys()) excluded.add(`0x${address}`)
  let list: AccessListEntry[] = (req.accessList ?? []).filter((e) => !excluded.has(e.address))
  for (let round = 0; round < MAX_ACCESS_LIST_ROUNDS; round++) {
    const outcome = await runMessage(env, { ...req, accessList: list }, gas, { want: 'accessList' })
    const next = (outcome.accessList ?? []).filter((e) => !excluded.has(e.address))
    if (key(next) === key(list)) return { accessList: list, gasUsed: outcome.gasUsed, error: outcome.error }
    list = next
  }
  throw new Error(`access list did not settle after ${MAX_ACCESS_LIST_ROUNDS} rounds`)
}
