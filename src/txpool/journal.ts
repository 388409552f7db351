/**
 * The pool's journal: every accepted transaction is appended to a file in the datadir as one
 * RLP byte string (the raw signed transaction), so a restart — clean or after a crash — finds
 * the pool again. At start the node reads the file, re-validates every transaction against the
 * head (mined or now invalid ones fall out) and rewrites the file with what was kept.
 *
 *   accept ─▶ append(raw)          (one write(2) per transaction, no fsync: like geth's journal)
 *   start, every `rejournal`, stop, or appended > max(JOURNAL_COMPACT_FACTOR × pool size,
 *   JOURNAL_COMPACT_MIN_RECORDS) ─▶ rotate(pool content): write FILE.new, fsync, rename over FILE
 *
 * A record cut short by a crash ends the load there; everything before it is kept.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { RLP } from '@ethereumjs/rlp'

/** The journal is rewritten once it holds this many times more records than the pool has transactions. */
export const JOURNAL_COMPACT_FACTOR = 4
/** …but never for fewer appended records than this (a small pool churns cheaply). */
export const JOURNAL_COMPACT_MIN_RECORDS = 4096

export class TxJournal {
  readonly path: string
  #fd: number | undefined
  /** Records appended since the last rotation. */
  #appended = 0

  constructor(path: string) {
    this.path = path
  }

  /** Raw transactions in the file, oldest first; stops at the first damaged record. */
  load(): { raws: Uint8Array[]; damaged: boolean } {
    if (!existsSync(this.path)) return { raws: [], damaged: false }
    let rest: Uint8Array = readFileSync(this.path)
    const raws: Uint8Array[] = []
    while (rest.length > 0) {
      try {
        const { data, remainder } = RLP.decode(rest, true)
        if (!(data instanceof Uint8Array)) return { raws, damaged: true }
        raws.push(data)
        rest = remainder
      } catch {
        return { raws, damaged: true }
      }
    }
    return { raws, damaged: false }
  }

  append(raw: Uint8Array): void {
    this.#fd ??= openSync(this.path, 'a')
    writeSync(this.#fd, RLP.encode(raw))
    this.#appended++
  }

  /** True when the file has grown well past what the pool holds. */
  needsRotation(poolSize: number): boolean {
    return this.#appended > Math.max(JOURNAL_COMPACT_FACTOR * poolSize, JOURNAL_COMPACT_MIN_RECORDS)
  }

  /** Replaces the file with exactly `raws` (atomic: temp file, fsync, rename). */
  rotate(raws: readonly Uint8Array[]): void {
    this.close()
    const tmp = `${this.path}.new`
    const fd = openSync(tmp, 'w')
    try {
      if (raws.length > 0) writeSync(fd, Buffer.concat(raws.map((r) => RLP.encode(r))))
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, this.path)
    this.#appended = 0
  }

  close(): void {
    if (this.#fd === undefined) return
    closeSync(this.#fd)
    this.#fd = undefined
  }
}
