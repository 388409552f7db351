/**
 * debug_trace*: geth's tracing methods (eth/tracers/api.go), served with the rest of the debug
 * namespace when `debug` is in `[jsonrpc] api`. The dispatcher merges this table with debug.ts.
 *
 *   params ─▶ resolve block / transaction here (cheap reads) ─▶ Backend.trace* (the node's: an
 *          ExecPool trace worker re-executes) ─▶ JSON bytes (transferred) ─▶ RawJson spliced into
 *          the response, never re-parsed
 *
 * Tracer options: the struct logger's switches (`enableMemory`, `disableStack`, `disableStorage`,
 * `enableReturnData`), `tracer` (`callTracer`, `prestateTracer`, `noopTracer`), `tracerConfig`,
 * `timeout` (Go duration, default 5s, per transaction). debug_traceCall's options also take
 * `stateOverrides` (movePrecompileToAddress included) and `blockOverrides`, decoded as eth_call's. Block traces answer `[{txHash, result}]`, `{txHash, error}` for a transaction
 * whose trace failed.
 */
import {
  type CallOverrides,
  decodeTraceOptions,
  defaultTraceOptions,
  TraceConfigError,
  type TraceOptions,
  TraceOptionsError,
} from '../../exec/pool/index.js'
import type { ChainBlock } from '../../chain/store.js'
import { type Backend, resolveBlock, stateBlock } from '../backend.js'
import { GenesisNotTraceableError, InvalidParamsError, NotFoundError, ServerError } from '../errors.js'
import { toData } from '../../util/hex.js'
import { BlockNumber, BlockTag, CallObject, Data, Hash, optional } from '../params/index.js'
import { unmarshalBlockOverrides, unmarshalStateOverride } from '../params/call.js'
import { toParamsError } from '../params/decoder.js'
import { method, type Namespace, type ParamDecoder, RawJson } from '../types.js'
import { toCallRequest, toOverrides } from './eth/call.js'

interface TraceCallConfig {
  options: TraceOptions
  overrides: CallOverrides | undefined
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
      try {
        const state = unmarshalStateOverride(field(raw, 'stateOverrides') ?? null)
        const block = unmarshalBlockOverrides(field(raw, 'blockOverrides') ?? null)
        return { options, overrides: toOverrides(state, block) }
      } catch (err) {
        throw toParamsError(err)
      }
    },
  },
  { options: DEFAULT_OPTIONS, overrides: undefined },
)

function traceable(block: ChainBlock): ChainBlock {
  if (block.header.number === 0n) throw new GenesisNotTraceableError()
  return block
}

async function traceBlock(b: Backend, block: ChainBlock, options: TraceOptions): Promise<RawJson> {
  return new RawJson(await b.traceBlock(traceable(block), options))
}

export const debugTraceNamespace: Namespace<Backend> = {
  name: 'debug',
  methods: {
    debug_traceTransaction: method([Hash, TraceConfig], async (b, [hash, options]) => {
      const loc = b.txLocation(hash)
      if (loc === undefined) throw new NotFoundError('transaction')
      if (loc.blockNumber === 0n) throw new GenesisNotTraceableError()
      return new RawJson(await b.traceTransaction(loc, options))
    }),
    debug_traceBlockByNumber: method([BlockNumber, TraceConfig], async (b, [ref, options]) => {
      const block = resolveBlock(b, ref)
      if (block === undefined) throw new NotFoundError(`block #${ref.kind === 'number' ? ref.number : ref.kind}`)
      return traceBlock(b, block, options)
    }),
    debug_traceBlockByHash: method([Hash, TraceConfig], async (b, [hash, options]) => {
      const block = b.blockByHash(hash)
      if (block === undefined) throw new NotFoundError(`block ${toData(hash)}`)
      return traceBlock(b, block, options)
    }),
    debug_traceBlock: method(
      [Data, TraceConfig],
      async (b, [rlp, options]) => new RawJson(await b.traceRawBlock(rlp, options)),
    ),
    debug_traceCall: method([CallObject, BlockTag, CallTraceConfig], async (b, [args, ref, config]) => {
      const block = stateBlock(b, ref)
      return new RawJson(await b.traceCall(block, toCallRequest(args), config.overrides, config.options))
    }),
  },
}
