/** Constants of the execution pool shared by the main thread, the worker entry points and tests. */

/**
 * Calls handed to one call worker at a time. The worker runs them one after another
 * (workers/execute.ts), but the next are already in its inbox when one ends: without this, the
 * worker idles for a main-thread round trip between two calls (half its time under load). Two
 * batches' worth (CALL_BATCH_MAX), so one batch is answered while the next runs.
 */
export const CALL_PIPELINE_DEPTH = 16

/**
 * Most calls one message to a call worker carries: calls submitted in one event-loop turn go
 * together (one post, one wake, one answer back; the hop was most of a fast call's cost, 2026-11-28
 * profile: Piscina's postTask a quarter of the main thread's time under distinct eth_calls).
 * Bounded so that the first call of a batch is not held long for the answers of the rest: 8
 * fast-layer calls take ~0.2 ms.
 */
export const CALL_BATCH_MAX = 8

/**
 * Niceness of a trace worker thread (0 = the node's own, 19 = lowest; workers/trace.ts sets it):
 * when cores are short, traces yield the CPU to the main thread's RPC answers.
 */
export const TRACE_THREAD_NICE = 10
