/**
 * What the checkpoint service remembers across restarts (datadir/checkpoint-state.json): the
 * submission it sent and has not seen committed yet. With it, a restarted proposer looks its
 * transaction up instead of sending the checkpoint a second time; it resends (with the same nonce,
 * so at most one of the two can ever be mined) only when the base chain no longer knows it.
 *
 * Written as `<file>.new`, fsynced, renamed over the file: a crash leaves the old record or the
 * new one, never half of one. An unreadable file is reported and ignored (the contract's own
 * continuity check still refuses a duplicate: the record only saves a wasted transaction).
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'

/** File name under the datadir. */
export const CHECKPOINT_STATE_FILE = 'checkpoint-state.json'
/** Format version of the file. */
export const CHECKPOINT_STATE_VERSION = 1

/** A submission sent to the base chain. */
export interface SubmissionRecord {
  start: bigint
  end: bigint
  root: string
  txHash: string
  nonce: bigint
  /** Local time it was (last) sent, ms. */
  sentAtMs: number
}

export interface CheckpointState {
  /** The manager the record is about (a record for another contract is ignored). */
  manager: string
  pending: SubmissionRecord | undefined
}

interface FileShape {
  version: number
  manager: string
  pending: { start: string; end: string; root: string; txHash: string; nonce: string; sentAtMs: number } | null
}

export interface CheckpointStateStore {
  load(): CheckpointState | undefined
  save(state: CheckpointState): void
}

/** The file store (module doc). */
export class FileCheckpointStateStore implements CheckpointStateStore {
  readonly #path: string
  readonly #onUnreadable: (reason: string) => void

  constructor(path: string, onUnreadable: (reason: string) => void) {
    this.#path = path
    this.#onUnreadable = onUnreadable
  }

  load(): CheckpointState | undefined {
    if (!existsSync(this.#path)) return undefined
    try {
      const f = JSON.parse(readFileSync(this.#path, 'utf8')) as FileShape
      if (f.version !== CHECKPOINT_STATE_VERSION) throw new Error(`version ${f.version}, expected ${CHECKPOINT_STATE_VERSION}`)
      if (typeof f.manager !== 'string') throw new Error('no manager')
      const p = f.pending
      return {
        manager: f.manager,
        pending:
          p === null
            ? undefined
            : {
                start: BigInt(p.start),
                end: BigInt(p.end),
                root: String(p.root),
                txHash: String(p.txHash),
                nonce: BigInt(p.nonce),
                sentAtMs: Number(p.sentAtMs),
              },
      }
    } catch (err) {
      this.#onUnreadable((err as Error).message)
      return undefined
    }
  }

  save(state: CheckpointState): void {
    const p = state.pending
    const shape: FileShape = {
      version: CHECKPOINT_STATE_VERSION,
      manager: state.manager,
      pending:
        p === undefined
          ? null
          : { start: String(p.start), end: String(p.end), root: p.root, txHash: p.txHash, nonce: String(p.nonce), sentAtMs: p.sentAtMs },
    }
    const tmp = `${this.#path}.new`
    const fd = openSync(tmp, 'w', 0o600)
    try {
      writeSync(fd, `${JSON.stringify(shape, null, 2)}\n`)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, this.#path)
  }
}

/** An in-memory store (tests). */
export class MemoryCheckpointStateStore implements CheckpointStateStore {
  state: CheckpointState | undefined
  load(): CheckpointState | undefined {
    return this.state === undefined ? undefined : structuredClone(this.state)
  }
  save(state: CheckpointState): void {
    this.state = structuredClone(state)
  }
}
