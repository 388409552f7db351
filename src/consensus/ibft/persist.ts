/**
 * What a validator must not forget across a crash: its votes at the height it is deciding.
 * IBFT's agreement holds only if an honest validator never prepares (or commits) two different
 * blocks in one round, and after preparing a block carries its prepared certificate into every
 * later ROUND_CHANGE of that height. A validator restarted mid-height without this record could
 * vote for an equivocating proposer's second block, or ask for a new round while hiding the block
 * a quorum may already have committed — two decided blocks at one height.
 *
 * The engine saves the record *before* it sends the message it describes (write-ahead), and loads
 * it when it starts a height: a record for that height restores the round, the votes and the
 * prepared certificate; a record for another height is ignored.
 *
 *   record = RLP([version, height, round, votes, prepared])
 *   votes    = [[round, code, digest], …]      PREPARE / COMMIT this validator sent, one per (round, code)
 *   prepared = our own ROUND_CHANGE wire message carrying the prepared certificate and its block,
 *              or the empty string — reusing the message codec means loading re-checks signatures
 *              and that the block hashes to the certified digest.
 *
 * The file store writes `<file>.new`, fsyncs it, and renames it over the file: a crash leaves
 * either the old record or the new one, never a torn one. A record that does not decode is
 * reported and ignored (the validator then behaves as after a clean start), never fatal.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'

/** IBFT_STATE_FILE is the record's name in the datadir. */
export const IBFT_STATE_FILE = 'ibft-state.rlp'
/** Format version written first in the record; a record of another version is ignored. */
export const IBFT_STATE_VERSION = 1n

/** One vote this validator sent at the record's height. */
export interface PersistedVote {
  round: bigint
  /** MessageCode.PREPARE (1) or MessageCode.COMMIT (2). */
  code: number
  digest: Uint8Array
}

/** The record: the height being decided, the round reached, the votes sent, the latest prepared certificate. */
export interface PersistedIbftState {
  height: bigint
  round: bigint
  votes: PersistedVote[]
  /** Our ROUND_CHANGE wire bytes carrying the prepared certificate and block; undefined when nothing is prepared. */
  prepared: Uint8Array | undefined
}

/** Where the engine keeps its record: a file in production, memory in tests. */
export interface IbftStateStore {
  /** The last saved record; undefined when none (or when it cannot be read — `onDamaged` says why). */
  load(): PersistedIbftState | undefined
  /** Replaces the record; returns only once it is durable. */
  save(state: PersistedIbftState): void
}

export function encodeIbftState(s: PersistedIbftState): Uint8Array {
  return RLP.encode([
    bigIntToUnpaddedBytes(IBFT_STATE_VERSION),
    bigIntToUnpaddedBytes(s.height),
    bigIntToUnpaddedBytes(s.round),
    s.votes.map((v) => [bigIntToUnpaddedBytes(v.round), bigIntToUnpaddedBytes(BigInt(v.code)), v.digest]),
    s.prepared ?? new Uint8Array(0),
  ])
}

/** Decodes a record; throws on anything malformed (the caller treats that as no record). */
export function decodeIbftState(bytes: Uint8Array): PersistedIbftState {
  const item = RLP.decode(bytes)
  if (!Array.isArray(item) || item.length !== 5) throw new Error('not a 5-item list')
  const [version, height, round, votes, prepared] = item
  if (!(version instanceof Uint8Array) || bytesToBigInt(version) !== IBFT_STATE_VERSION)
    throw new Error('unknown record version')
  if (!(height instanceof Uint8Array) || !(round instanceof Uint8Array) || !(prepared instanceof Uint8Array))
    throw new Error('height, round and prepared must be byte strings')
  if (!Array.isArray(votes)) throw new Error('votes must be a list')
  return {
    height: bytesToBigInt(height),
    round: bytesToBigInt(round),
    votes: votes.map((v) => {
      if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => x instanceof Uint8Array))
        throw new Error('a vote must be [round, code, digest]')
      const [r, code, digest] = v as Uint8Array[]
      return { round: bytesToBigInt(r as Uint8Array), code: Number(bytesToBigInt(code as Uint8Array)), digest: digest as Uint8Array }
    }),
    prepared: prepared.length === 0 ? undefined : prepared,
  }
}

/** Keeps the record in memory (tests; a "restart" is a new engine over the same store). */
export class MemoryIbftStateStore implements IbftStateStore {
  #bytes: Uint8Array | undefined
  saves = 0

  load(): PersistedIbftState | undefined {
    return this.#bytes === undefined ? undefined : decodeIbftState(this.#bytes)
  }
  save(state: PersistedIbftState): void {
    this.#bytes = encodeIbftState(state)
    this.saves++
  }
}

/** Keeps the record in one file, replaced atomically and fsynced on every save. */
export class FileIbftStateStore implements IbftStateStore {
  readonly path: string
  readonly #onDamaged: (reason: string) => void

  constructor(path: string, onDamaged: (reason: string) => void = () => {}) {
    this.path = path
    this.#onDamaged = onDamaged
  }

  load(): PersistedIbftState | undefined {
    if (!existsSync(this.path)) return undefined
    try {
      return decodeIbftState(readFileSync(this.path))
    } catch (err) {
      this.#onDamaged(`${this.path}: ${(err as Error).message}`)
      return undefined
    }
  }

  save(state: PersistedIbftState): void {
    const tmp = `${this.path}.new`
    const fd = openSync(tmp, 'w')
    try {
      writeSync(fd, encodeIbftState(state))
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, this.path)
  }
}
