/**
 * debug_trace*: geth's tracing methods (eth/tracers/api.go), served with the rest of the debug
 * namespace when `debug` is in `[jsonrpc] api`. The dispatcher merges this table with debug.ts.
 *
 *   params ─▶ resolve block / transaction here (cheap reads) ─▶ ExecPool trace worker re-executes
 *          ─▶ JSON text (transferred) ─▶ RawJson spliced into the response, never re-parsed
 *
 * Tracer options: the struct logger's switches (`enableMemory`, `disableStack`, `disableStorage`,
 * `enableReturnData`), `tracer` (`callTracer`, `prestateTracer`, `noopTracer`), `tracerConfig`,
 * `timeout` (Go duration, default 5s, per transaction). debug_traceCall's options also take
 * `stateOverrides`. Block traces answer `[{txHash, result}]`, `{txHash, error}` for a transaction
 * whose trace failed.
 */
import { RLP } from '@ethereumjs/rlp'
import type { TraceJob } from '../../exec/pool/index.js'
import {
  decodeTraceOptions,
  defaultTraceOptions,
  TraceConfigError,
  type TraceOptions,
  TraceOptionsError,
} from '../../exec/tracers/options.js'
import { type AccountOverride, decodeStateOverrides, OverrideError } from '../../exec/tracers/overrides.js'
import type { ChainBlock } from '../../chain/store.js'
import type { Backend } from '../backend.js'
import { InvalidParamsError, ServerError } from '../errors.js'
import { toData } from '../hex.js'
import { type BlockRef, BlockNumber, BlockTag, type CallArgs, CallObject, Data, Hash, optional } from '../params/index.js'
import type { Namespace, ParamDecoder } from '../types.js'
import { RawJson } from '../types.js'
import { toRequest } from './eth/call.js'

interface TraceCallConfig {
  options: TraceOptions
  overrides: AccountOverride[]
}

function field(o: unknown, name: string): unknown {
  if (typeof o !== 'object' || o === null) return undefined
  const rec = o as Record<string, unknown>
  const lower = name.toLowerCase()
  for (const k of Object.keys(rec)) if (k.toLowerCase() === lower) return rec[k]
  return undefined
}

/** Options errors: bad JSON types are param errors; a bad tracer or timeout is geth's -32000 at trace time. */
function decodeOptions(raw: unknown): TraceOptions {
  try {
    return decodeTraceOptions(raw)
  } catch (err) {
    if (err instanceof TraceOptionsError) throw new InvalidParamsError(err.message)
    if (err instanceof TraceConfigError) throw new ServerError(err.message)
    throw err
  }
}

const DEFAULT_OPTIONS: TraceOptions = Object.freeze(defaultTraceOptions())

const TraceConfig: ParamDecoder<TraceOptions> = optional({ optional: false, decode: decodeOptions }, DEFAULT_OPTIONS)

const CallTraceConfig: ParamDecoder<TraceCallConfig> = optional(
  {
    optional: false,
    decode(raw: unknown): TraceCallConfig {
      const options = decodeOptions(raw)
      if (field(raw, 'blockOverrides') != null) throw new ServerError('blockOverrides are not supported by this node')
      try {
        return { options, overrides: decodeStateOverrides(field(raw, 'stateOverrides')) }
      } catch (err) {
        if (err instanceof OverrideError) throw new InvalidParamsError(err.message)
        throw err
      }
    },
  },
  { options: DEFAULT_OPTIONS, overrides: [] },
)

function head(b: Backend): bigint {
  return b.store.head.header.number
}

/** Room the JSON-RPC envelope takes around a result (`{"jsonrpc":"2.0","id":…,"result":…}`). */
const ENVELOPE_BYTES = 256

/**
 * The most bytes a trace may write: `[exec] trace_max_bytes`, and no more than the response cap
 * lets through — a trace the dispatcher would refuse stops in the worker instead of being built.
 */
function traceLimit(b: Backend): number {
  const cap = b.config.jsonrpc.maxResponseBytes
  const limit = b.config.exec.traceMaxBytes
  return cap > 0 ? Math.max(1, Math.min(limit, cap - ENVELOPE_BYTES)) : limit
}

function traceable(block: ChainBlock): ChainBlock {
  if (block.header.number === 0n) throw new ServerError('genesis is not traceable')
  return block
}

async function traceBlock(b: Backend, block: ChainBlock, options: TraceOptions): Promise<RawJson> {
  const task: TraceJob = { kind: 'traceBlock', head: head(b), blockHash: block.hash, options, maxBytes: traceLimit(b) }
  return new RawJson(await b.exec.trace(task, block.transactions.length))
}

/** Transactions in an RLP block, for the trace's hard deadline (0 when it does not decode: the worker says why). */
function txCountOf(rlp: Uint8Array): number {
  try {
    const decoded = RLP.decode(rlp) as unknown[]
    return Array.isArray(decoded[1]) ? decoded[1].length : 0
  } catch {
    return 0
  }
}

export const debugTraceNamespace: Namespace<Backend> = {
  name: 'debug',
  methods: {
    debug_traceTransaction: {
      params: [Hash, TraceConfig],
      handler: async (b, [hash, options]) => {
        const loc = b.store.getTxLocation(hash as Uint8Array)
        if (loc === undefined) throw new ServerError('transaction not found')
        if (loc.blockNumber === 0n) throw new ServerError('genesis is not traceable')
        const task: TraceJob = {
          kind: 'traceTx',
          head: head(b),
          blockHash: loc.blockHash,
          index: loc.index,
          options: options as TraceOptions,
          maxBytes: traceLimit(b),
        }
        return new RawJson(await b.exec.trace(task, 1))
      },
    },
    debug_traceBlockByNumber: {
      params: [BlockNumber, TraceConfig],
      handler: async (b, [ref, options]) => {
        const r = ref as BlockRef
        const block = b.resolveBlock(r)
        if (block === undefined) throw new ServerError(`block #${r.kind === 'number' ? r.number : r.kind} not found`)
        return traceBlock(b, traceable(block), options as TraceOptions)
      },
    },
    debug_traceBlockByHash: {
      params: [Hash, TraceConfig],
      handler: async (b, [hash, options]) => {
        const block = b.store.getBlockByHash(hash as Uint8Array)
        if (block === undefined) throw new ServerError(`block ${toData(hash as Uint8Array)} not found`)
        return traceBlock(b, traceable(block), options as TraceOptions)
      },
    },
    debug_traceBlock: {
      params: [Data, TraceConfig],
      handler: async (b, [rlp, options]) => {
        const bytes = rlp as Uint8Array
        const task: TraceJob = { kind: 'traceRlpBlock', head: head(b), rlp: bytes, options: options as TraceOptions, maxBytes: traceLimit(b) }
        return new RawJson(await b.exec.trace(task, txCountOf(bytes)))
      },
    },
    debug_traceCall: {
      params: [CallObject, BlockTag, CallTraceConfig],
      handler: async (b, [args, ref, config]) => {
        const block = b.stateBlock(ref as BlockRef)
        const { options, overrides } = config as TraceCallConfig
        const task: TraceJob = {
          kind: 'traceCall',
          head: head(b),
          blockHash: block.hash,
          request: toRequest(args as CallArgs),
          overrides,
          gasCap: b.config.jsonrpc.gasCap,
          options,
          maxBytes: traceLimit(b),
        }
        return new RawJson(await b.exec.trace(task, 1))
      },
    },
  },
}
