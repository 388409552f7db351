/**
 * Rows of the settings table (settings.ts) for the execution pool (src/exec/pool): worker threads
 * for eth_call / eth_estimateGas and for debug tracing, their queue limits, and the bounds that
 * keep one request from exhausting a worker; settings.ts splices them in.
 */
import {
  EXEC_CACHE_MB,
  EXEC_CALL_QUEUE,
  EXEC_RECOVER_WORKERS,
  EXEC_TRACE_MAX_BYTES,
  EXEC_TRACE_QUEUE,
  EXEC_TRACE_WORKERS,
  EXEC_WORKER_HEAP_MB,
} from './defaults.js'
import type { SettingDef } from './settings.js'
import type { IbexConfig } from './types.js'
import { parseInteger } from './values.js'

/** Most worker threads of one kind: far more than cores only adds memory and contention. */
const MAX_EXEC_WORKERS = 256

const int = (min: number, max: number) => (raw: unknown) => parseInteger(raw, min, max)

/** `[exec]` rows. */
export const EXEC_SETTINGS: readonly SettingDef[] = [
  {
    flag: 'exec.workers',
    toml: ['exec', 'workers'],
    metavar: 'N',
    defaultText: 'cores - 1 (at least 1)',
    help: 'worker threads for eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1 (no EVM runs on the main thread)',
    parse: int(1, MAX_EXEC_WORKERS),
    apply: (c: IbexConfig, v) => {
      c.exec.workers = v as number
    },
  },
  {
    flag: 'exec.call-queue',
    toml: ['exec', 'call_queue'],
    metavar: 'N',
    defaultText: String(EXEC_CALL_QUEUE),
    help: 'eth_call/eth_estimateGas requests that may wait for a worker; more are refused (-32005)',
    parse: int(0, 1_000_000),
    apply: (c: IbexConfig, v) => {
      c.exec.callQueue = v as number
    },
  },
  {
    flag: 'exec.trace-workers',
    toml: ['exec', 'trace_workers'],
    metavar: 'N',
    defaultText: String(EXEC_TRACE_WORKERS),
    help: 'worker threads for debug_trace* (traces running at once), apart from the call workers',
    parse: int(1, MAX_EXEC_WORKERS),
    apply: (c: IbexConfig, v) => {
      c.exec.traceWorkers = v as number
    },
  },
  {
    flag: 'exec.trace-queue',
    toml: ['exec', 'trace_queue'],
    metavar: 'N',
    defaultText: String(EXEC_TRACE_QUEUE),
    help: 'debug_trace* requests that may wait for a trace worker; more are refused (-32005)',
    parse: int(0, 1_000_000),
    apply: (c: IbexConfig, v) => {
      c.exec.traceQueue = v as number
    },
  },
  {
    flag: 'exec.trace-max-bytes',
    toml: ['exec', 'trace_max_bytes'],
    metavar: 'BYTES',
    defaultText: `${EXEC_TRACE_MAX_BYTES} (256 MiB)`,
    help: 'largest trace answer; a trace that grows past it stops with -32005',
    parse: int(1024, 512 * 1024 * 1024),
    apply: (c: IbexConfig, v) => {
      c.exec.traceMaxBytes = v as number
    },
  },
  {
    flag: 'exec.worker-heap',
    toml: ['exec', 'worker_heap_mb'],
    metavar: 'MIB',
    defaultText: String(EXEC_WORKER_HEAP_MB),
    help: 'JS heap limit of each worker, MiB (0 = Node default); a worker over it is replaced and its request fails',
    parse: int(0, 1_048_576),
    apply: (c: IbexConfig, v) => {
      c.exec.workerHeapMb = v as number
    },
  },
  {
    flag: 'exec.cache',
    toml: ['exec', 'cache_mb'],
    metavar: 'MIB',
    defaultText: String(EXEC_CACHE_MB),
    help: "each worker's cache of state trie nodes, MiB",
    parse: int(0, 1_048_576),
    apply: (c: IbexConfig, v) => {
      c.exec.cacheMb = v as number
    },
  },
  {
    flag: 'exec.recover-workers',
    toml: ['exec', 'recover_workers'],
    metavar: 'N',
    defaultText: String(EXEC_RECOVER_WORKERS),
    help: 'worker threads recovering the senders of submitted transactions (ecrecover); 0 = on the main thread',
    parse: int(0, MAX_EXEC_WORKERS),
    apply: (c: IbexConfig, v) => {
      c.exec.recoverWorkers = v as number
    },
  },
]
