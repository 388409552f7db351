/**
 * Parallel block execution: optimistic, with conflict detection, results identical to sequential
 * execution. Contract transactions of a block run speculatively on worker threads against the
 * parent block's committed state; the main thread then goes through the block in order as before
 * and, at each transaction's turn, uses its speculative run when what the run read still holds.
 *
 *   main thread                                      speculation workers (workers/speculate.ts)
 *   executeTransactions ─ speculate(items) ────────▶ per sender chain, per tx on the PARENT state:
 *   (blockExec.ts)          (speculator.ts)           runTx on a RecordingStateManager (recorder.ts)
 *     system calls, then in block order:              ─▶ read set (first value of every account and
 *     tx i: fast-path transfer? ─▶ apply               slot), op log (mutations kept), gas, status,
 *           else await run i ◀──────────────────────── logs, created address; or a miss
 *           run ok and readsHold(block state)? (validate.ts)
 *             yes ─▶ applyOps (replay the mutations, tip as a delta) ─▶ receipt from the run
 *             no / miss / no run ─▶ runTx, exactly as without this module
 *
 * What must always hold:
 *  - a run is applied only when every value it read on the parent equals what the block's state
 *    answers at its turn (earlier transactions, transfers and system calls included): then runTx
 *    would make the same calls with the same answers, so the replay leaves the same state, gas,
 *    logs and status (recorder.ts gives the argument, parallel.test.ts checks it block by block);
 *  - the coinbase's tip credit is the one write taken as a delta: a transaction that touches the
 *    coinbase otherwise reads it like any account;
 *  - the skip/drop decisions (gas that does not fit, invalid transactions, blocked senders) are the
 *    sequential loop's own: a run that threw is not used, runTx throws (or drops) as always; so the
 *    builder includes and drops the same transactions and the verifier fails with the same errors;
 *  - blocks with fewer than SPECULATE_MIN_TXS contract transactions are not speculated at all.
 *
 * Off by default (`[exec] parallel_execution`). Measured on the 2-core box (bench/parallel-exec.ts,
 * 2000 ERC-20 transfers from 2000 senders, median of 3): sequential 749 tx/s, parallel 347 tx/s
 * (0.46x) although every run was applied. For a token transfer ethereumjs spends most of runTx in
 * the state manager (a storage write goes through the storage trie at once: RLP, keccak), which the
 * replay repeats on the main thread (~0.6-0.7 ms a transaction), and runTx on the parent state in a
 * worker is slower than on the builder's warm state; with 2 cores the workers also take the main
 * thread's CPU. Plain transfers never reach the threshold: block-exec.js is unchanged with it on.
 * Turn it on only where a measurement on the target shows a gain (more cores, heavier contracts).
 */
export { recordingStateAt, RecordingStateManager } from './recorder.js'
export { speculateTask, type SpeculationHost } from './speculate.js'
export {
  SPECULATE_MIN_TXS,
  SPECULATE_PIPELINE_DEPTH,
  SPECULATE_TASK_TXS,
  SpeculatedBlock,
  Speculator,
  type SpeculationParams,
  type SpeculatorOptions,
} from './speculator.js'
export type { SpeculatedTx, SpeculateResult, SpeculateTask } from './types.js'
export { applyOps, readsHold } from './validate.js'
