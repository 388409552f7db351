/** Constants of the execution pool shared by the main thread, the worker entry points and tests. */

/**
 * Slots of a call worker's ring (src/exec/pool/ring.ts): the calls handed to one worker at a time.
 * It runs them one after another, but the next are already in its ring when one ends, so it does
 * not idle for a main-thread round trip between two calls; calls beyond this wait in the lane's
 * queue (`exec.call_queue`).
 */
export const CALL_PIPELINE_DEPTH = 16

/**
 * Niceness of a trace worker thread (0 = the node's own, 19 = lowest; workers/trace.ts sets it):
 * when cores are short, traces yield the CPU to the main thread's RPC answers.
 */
export const TRACE_THREAD_NICE = 10
