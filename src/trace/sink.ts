/**
 * JsonSink: a bounded, append-only byte buffer that tracers write their JSON into while the EVM
 * runs, so a trace is never held as millions of JS objects. Text is written as latin1 (every
 * byte a tracer writes is ASCII: hex, op names, geth's error strings), into chunks of
 * CHUNK_BYTES allocated outside Node's Buffer pool so they can be transferred (not copied) from a
 * worker to the main thread.
 *
 *   write(text) ──▶ current chunk ──full──▶ next chunk … ──▶ parts(): Uint8Array[] (transferable)
 *   reserve() ──▶ a hole filled later by fill(hole, text) — for fields known only at the end
 *                 (geth puts `failed`, `gas`, `returnValue` before `structLogs`)
 *
 * What always holds: the bytes written never exceed `limitBytes`; the first write past it throws
 * TraceTooLargeError, which stops the execution that produced it (the step hook rethrows).
 */
import { IbexError } from '../util/errors.js'

/** Chunk size: large enough that a 100 MB trace is ~100 transfers, small enough to waste little. */
export const CHUNK_BYTES = 1 << 20
/** First size of a chunk; it doubles up to CHUNK_BYTES as text arrives. */
const SMALL_CHUNK_BYTES = 4096

/** Thrown when a trace's JSON would exceed the configured result limit. */
export class TraceTooLargeError extends IbexError {
  readonly kind = 'traceTooLarge'
  readonly limitBytes: number
  constructor(limitBytes: number) {
    super(
      `trace result exceeds the limit of ${limitBytes} bytes (node settings [exec] trace_max_bytes, [jsonrpc] max_response_bytes); use disableStack/disableStorage, leave enableMemory off, or the callTracer`,
    )
    this.name = 'TraceTooLargeError'
    this.limitBytes = limitBytes
  }
}

interface Hole {
  index: number
}

export interface Mark {
  parts: number
  total: number
}

export class JsonSink {
  readonly limitBytes: number
  /** Finished chunks, and string placeholders for holes not yet filled. */
  readonly #parts: (Uint8Array | string | Hole)[] = []
  #chunk: Buffer
  #used = 0
  #total = 0

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes
    this.#chunk = Buffer.allocUnsafeSlow(SMALL_CHUNK_BYTES)
  }

  /** Bytes written so far (holes not counted until filled). */
  get size(): number {
    return this.#total
  }

  /** Appends ASCII text. */
  write(text: string): void {
    const n = text.length
    this.#total += n
    if (this.#total > this.limitBytes) throw new TraceTooLargeError(this.limitBytes)
    if (this.#used + n > this.#chunk.length) this.#grow(n)
    this.#chunk.write(text, this.#used, 'latin1')
    this.#used += n
  }

  /** A place whose text is written later with fill(). */
  reserve(): Hole {
    this.#flush()
    const hole: Hole = { index: this.#parts.length }
    this.#parts.push(hole)
    return hole
  }

  fill(hole: Hole, text: string): void {
    this.#total += text.length
    if (this.#total > this.limitBytes) throw new TraceTooLargeError(this.limitBytes)
    this.#parts[hole.index] = text
  }

  /** A point rewind() can return to, dropping everything written after it. */
  mark(): Mark {
    this.#flush()
    return { parts: this.#parts.length, total: this.#total }
  }

  rewind(mark: Mark): void {
    this.#parts.length = mark.parts
    this.#used = 0
    this.#total = mark.total
  }

  /** The JSON as byte chunks, in order; the sink must not be written afterwards. */
  parts(): Uint8Array[] {
    this.#flush()
    return this.#parts.map((p) => {
      if (p instanceof Uint8Array) return p
      if (typeof p === 'string') return bufferOf(p)
      throw new Error('JsonSink: a reserved place was never filled')
    })
  }

  /** The JSON as one string (tests, and the in-process executor). */
  text(): string {
    return decodeParts(this.parts())
  }

  #grow(need: number): void {
    // chunks start small and double up to CHUNK_BYTES, so small traces stay small
    const cap = this.#chunk.length
    if (cap < CHUNK_BYTES && this.#used + need <= CHUNK_BYTES) {
      const bigger = Buffer.allocUnsafeSlow(Math.min(CHUNK_BYTES, Math.max(cap * 2, this.#used + need)))
      this.#chunk.copy(bigger, 0, 0, this.#used)
      this.#chunk = bigger
      return
    }
    this.#flush()
    if (need > this.#chunk.length) this.#chunk = Buffer.allocUnsafeSlow(need)
  }

  #flush(): void {
    if (this.#used === 0) return
    this.#parts.push(new Uint8Array(this.#chunk.buffer, this.#chunk.byteOffset, this.#used))
    this.#chunk = Buffer.allocUnsafeSlow(SMALL_CHUNK_BYTES)
    this.#used = 0
  }
}

function bufferOf(text: string): Uint8Array {
  const b = Buffer.allocUnsafeSlow(text.length)
  b.write(text, 0, 'latin1')
  return new Uint8Array(b.buffer, b.byteOffset, b.length)
}

/** Joins transferred chunks back into the JSON text. */
export function decodeParts(parts: readonly Uint8Array[]): string {
  let out = ''
  for (const p of parts) out += Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('latin1')
  return out
}

/** The distinct ArrayBuffers behind `parts` (what a worker transfers). */
export function transferablesOf(parts: readonly Uint8Array[]): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>()
  for (const p of parts) seen.add(p.buffer as ArrayBuffer)
  return [...seen]
}
