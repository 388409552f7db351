/**
 * The validator set at a block: the DAO's seated, unsuspended seats that name a signer and lock
 * stake, read from the ValidatorSigners contract (issue 19) at that block's state. This is the one
 * function every part of the node uses to ask "who validates at block B" (span draws, consent
 * checks, RPC).
 *
 *   readValidatorSet(caller, blockHash)
 *     ─▶ caller.callAt(blockHash, VALIDATOR_SIGNERS_ADDRESS, selector("validatorSet()"))
 *        (the exec pool's call lane: no EVM on the main thread; execPoolCaller)
 *     ─▶ ABI (uint256[] seats, address[] signers, uint256[] powers)
 *     ─▶ ValidatorSet: [{seat, signer, power}] in strictly ascending signer order, power > 0
 *
 * What holds: the contract already filters (seated, unsuspended, signer named, stake > 0) and sorts
 * by signer; the decoder checks that it did and refuses the answer otherwise (ValidatorSetError),
 * because a set two nodes read differently would split the chain. A block whose state has no
 * contract at the address (empty return data) has the empty set: spans drawn from it carry the
 * current committee on (draw.ts).
 */
import { bytesToBigInt, bytesToHex, hexToBytes, utf8ToBytes } from '@ethereumjs/util'

import { compareBytes } from '../chain/ibft/span.js'
import type { ExecPool } from '../exec/pool/index.js'
import { keccak256 } from '../util/keccak.js'
import { ValidatorSetError } from './errors.js'

/** Where the ValidatorSigners contract is predeployed in every preset (issue 19, beside ValidatorDAO). */
export const VALIDATOR_SIGNERS_ADDRESS = hexToBytes('0x0000000000000000000000000000000000da0014')
/** Calldata of `validatorSet()`: its 4-byte selector. */
export const VALIDATOR_SET_CALLDATA: Uint8Array = keccak256(utf8ToBytes('validatorSet()')).slice(0, 4)
/** Gas given to the view call: the set is a loop over seats, far below a block's gas (bounded by the DAO's seat cap). */
export const VALIDATOR_SET_CALL_GAS = 50_000_000n
/** How long the view call may run on a worker before it is stopped. */
export const VALIDATOR_SET_CALL_TIMEOUT_MS = 10_000
/** Largest set accepted from the contract: far above any seat count the DAO allows, a guard against a garbage length. */
export const MAX_VALIDATOR_SET_SIZE = 10_000

const WORD = 32

/** One validator: its DAO seat, the signer its node seals with, its power (locked stake, wei). */
export interface Validator {
  seat: bigint
  /** 20 bytes. */
  signer: Uint8Array
  power: bigint
}

/** Validators in strictly ascending signer order, each with power > 0. */
export type ValidatorSet = Validator[]

/** Runs a view call at a block's state, off the main thread; returns the return data or throws on revert. */
export interface ViewCaller {
  callAt(blockHash: Uint8Array, to: Uint8Array, data: Uint8Array): Promise<Uint8Array>
}

/** execPoolCaller runs view calls on the exec pool's call lane (as eth_call does). */
export function execPoolCaller(pool: ExecPool, head: () => bigint): ViewCaller {
  return {
    async callAt(blockHash, to, data) {
      return (await pool.call({
        kind: 'call',
        head: head(),
        blockHash,
        request: { to, data, gas: VALIDATOR_SET_CALL_GAS },
        limits: { gasCap: VALIDATOR_SET_CALL_GAS, timeoutMs: VALIDATOR_SET_CALL_TIMEOUT_MS },
      })) as Uint8Array
    },
  }
}

/** readValidatorSet returns the validator set at the state of `blockHash`; throws ValidatorSetError. */
export async function readValidatorSet(caller: ViewCaller, blockHash: Uint8Array): Promise<ValidatorSet> {
  let data: Uint8Array
  try {
    data = await caller.callAt(blockHash, VALIDATOR_SIGNERS_ADDRESS, VALIDATOR_SET_CALLDATA)
  } catch (err) {
    throw new ValidatorSetError(
      'call-failed',
      `validatorSet() at block ${bytesToHex(blockHash)}: ${(err as Error).message}`,
      err,
    )
  }
  return decodeValidatorSet(data)
}

/** totalPower sums the powers of a set. */
export function totalPower(set: readonly { power: bigint }[]): bigint {
  let sum = 0n
  for (const v of set) sum += v.power
  return sum
}

/**
 * decodeValidatorSet parses the ABI answer (uint256[] seats, address[] signers, uint256[] powers).
 * Empty data (no contract) is the empty set. Throws ValidatorSetError naming what is wrong.
 */
export function decodeValidatorSet(data: Uint8Array): ValidatorSet {
  if (data.length === 0) return []
  const seats = array(data, 0, 'seats')
  const signers = array(data, 1, 'signers')
  const powers = array(data, 2, 'powers')
  if (seats.length !== signers.length || seats.length !== powers.length)
    throw new ValidatorSetError(
      'length-mismatch',
      `${seats.length} seats, ${signers.length} signers, ${powers.length} powers`,
    )
  const set: ValidatorSet = []
  for (let i = 0; i < seats.length; i++) {
    const word = signers[i] as Uint8Array
    if (word.subarray(0, 12).some((b) => b !== 0))
      throw new ValidatorSetError('bad-abi', `signers[${i}] has bits above 160`)
    const signer = word.slice(12)
    const power = bytesToBigInt(powers[i] as Uint8Array)
    if (power === 0n) throw new ValidatorSetError('zero-power', `seat ${bytesToBigInt(seats[i] as Uint8Array)} has power 0`)
    const previous = set[i - 1]
    if (previous !== undefined && compareBytes(previous.signer, signer) >= 0)
      throw new ValidatorSetError(
        'unsorted',
        `signer ${bytesToHex(signer)} (index ${i}) does not come after ${bytesToHex(previous.signer)}`,
      )
    set.push({ seat: bytesToBigInt(seats[i] as Uint8Array), signer, power })
  }
  return set
}

/** The 32-byte items of the dynamic array whose offset is head word `index`. */
function array(data: Uint8Array, index: number, name: string): Uint8Array[] {
  const offset = word(data, index * WORD, `${name} offset`)
  const length = word(data, offset, `${name} length`)
  if (length > MAX_VALIDATOR_SET_SIZE)
    throw new ValidatorSetError('bad-abi', `${name} has ${length} items, more than ${MAX_VALIDATOR_SET_SIZE}`)
  const start = offset + WORD
  if (start + length * WORD > data.length)
    throw new ValidatorSetError('bad-abi', `${name} runs past the end of the ${data.length}-byte answer`)
  const items: Uint8Array[] = []
  for (let i = 0; i < length; i++) items.push(data.subarray(start + i * WORD, start + (i + 1) * WORD))
  return items
}

function word(data: Uint8Array, at: number, what: string): number {
  if (at % WORD !== 0 || at + WORD > data.length)
    throw new ValidatorSetError('bad-abi', `${what} at byte ${at} is outside the ${data.length}-byte answer`)
  const value = bytesToBigInt(data.subarray(at, at + WORD))
  if (value > BigInt(data.length)) throw new ValidatorSetError('bad-abi', `${what} ${value} is past the answer`)
  return Number(value)
}
