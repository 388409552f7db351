/** Constants of the execution pool shared by the main thread, the worker entry points and tests. */

/**
 * Calls handed to one call worker at a time. The worker runs them one after another
 * (workers/execute.ts), but the next is already in its inbox when one ends: without this, the
 * worker idles for a main-thread round trip between two calls (half its time under load).
 */
export const CALL_PIPELINE_DEPTH = 4

/**
 * Niceness of a trace worker thread (0 = the node's own, 19 = lowest; workers/trace.ts sets it):
 * when cores are short, traces yield the CPU to the main thread's RPC answers.
 */
export const TRACE_THREAD_NICE = 10
