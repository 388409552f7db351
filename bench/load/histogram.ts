/**
 * A mergeable latency histogram (log-linear, like HdrHistogram): exact microseconds below
 * 1,024 µs, then 256 buckets per power of two (≈0.3% resolution) up to ~70 minutes. Cheap to
 * record into, small enough to send between processes, and merged by adding counts.
 */

/** Below this many microseconds every microsecond has its own bucket. */
const LINEAR_US = 1024
/** Buckets per doubling above LINEAR_US. */
const SUB_BUCKETS = 256
/** Doublings covered above LINEAR_US (2^32 µs ≈ 71 minutes). */
const OCTAVES = 22
export const HISTOGRAM_BUCKETS = LINEAR_US + SUB_BUCKETS * OCTAVES

function bucketOf(us: number): number {
  if (us < LINEAR_US) return us < 0 ? 0 : Math.floor(us)
  const i = LINEAR_US + Math.floor((Math.log2(us) - 10) * SUB_BUCKETS)
  return i < HISTOGRAM_BUCKETS ? i : HISTOGRAM_BUCKETS - 1
}

/** The lower edge of a bucket, microseconds. */
function bucketFloorUs(bucket: number): number {
  if (bucket < LINEAR_US) return bucket
  return 2 ** ((bucket - LINEAR_US) / SUB_BUCKETS + 10)
}

export class Histogram {
  readonly counts: Uint32Array
  total = 0
  maxUs = 0

  constructor(counts?: ArrayLike<number>) {
    this.counts = new Uint32Array(HISTOGRAM_BUCKETS)
    if (counts !== undefined) this.add(counts)
  }

  record(us: number): void {
    this.counts[bucketOf(us)]++
    this.total++
    if (us > this.maxUs) this.maxUs = us
  }

  /** Adds another histogram's counts (its `counts` array or a plain copy of it). */
  add(counts: ArrayLike<number>, maxUs = 0): void {
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
      const c = counts[i] ?? 0
      if (c > 0) {
        this.counts[i] += c
        this.total += c
      }
    }
    if (maxUs > this.maxUs) this.maxUs = maxUs
  }

  /** The latency at percentile `p` (0–100), milliseconds; NaN when empty. */
  percentileMs(p: number): number {
    if (this.total === 0) return Number.NaN
    const rank = Math.max(1, Math.ceil((p / 100) * this.total))
    let seen = 0
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
      seen += this.counts[i] as number
      if (seen >= rank) return Math.min(bucketFloorUs(i), this.maxUs) / 1000
    }
    return this.maxUs / 1000
  }

  /** Sparse form for IPC: [bucket, count] pairs. */
  toSparse(): [number, number][] {
    const out: [number, number][] = []
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) if (this.counts[i] !== 0) out.push([i, this.counts[i] as number])
    return out
  }

  static fromSparse(pairs: [number, number][], maxUs: number): Histogram {
    const h = new Histogram()
    for (const [i, c] of pairs) {
      h.counts[i] = c
      h.total += c
    }
    h.maxUs = maxUs
    return h
  }
}
