/**
 * Block order of pending transactions: repeatedly the best-paying head among the senders'
 * runs (a binary max-heap keyed by effective tip), so within a sender nonces stay in order.
 * Ties go to the sender seen first. O(n log senders).
 */
import type { PoolTx } from './index.js'

interface Head {
  run: PoolTx[]
  next: number
  tip: bigint
  /** Position of the run in the input (tie-breaker). */
  seq: number
}

function better(a: Head, b: Head): boolean {
  return a.tip > b.tip || (a.tip === b.tip && a.seq < b.seq)
}

function siftDown(heap: Head[], i: number): void {
  const n = heap.length
  for (;;) {
    const l = 2 * i + 1
    const r = l + 1
    let best = i
    if (l < n && better(heap[l] as Head, heap[best] as Head)) best = l
    if (r < n && better(heap[r] as Head, heap[best] as Head)) best = r
    if (best === i) return
    const t = heap[i] as Head
    heap[i] = heap[best] as Head
    heap[best] = t
    i = best
  }
}

/** Merges per-sender runs (each in nonce order) into block order at `baseFee`. */
export function orderByTip(runs: readonly PoolTx[][], baseFee: bigint): PoolTx[] {
  const heap: Head[] = []
  let total = 0
  runs.forEach((run, seq) => {
    if (run.length === 0) return
    total += run.length
    heap.push({ run, next: 0, tip: (run[0] as PoolTx).tipAt(baseFee), seq })
  })
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i)
  const out = new Array<PoolTx>(total)
  for (let k = 0; k < total; k++) {
    const top = heap[0] as Head
    out[k] = top.run[top.next++] as PoolTx
    if (top.next < top.run.length) {
      top.tip = (top.run[top.next] as PoolTx).tipAt(baseFee)
    } else {
      heap[0] = heap[heap.length - 1] as Head
      heap.pop()
    }
    if (heap.length > 0) siftDown(heap, 0)
  }
  return out
}
