/**
 * geth's tracers over the ethereumjs EVM, for debug_trace* (served by src/rpc/namespaces/
 * debugTrace.ts, run on the execution pool's trace workers):
 *
 *   options.ts    the TraceConfig param: struct logger switches, `tracer`, `tracerConfig`, `timeout`
 *   run.ts        re-execution: a block's earlier txs untraced, then the traced one(s); per-tx deadline
 *   traceCall.ts  debug_traceCall: a message on a block's state (+ overrides.ts)
 *   structLogger.ts, callTracer.ts, prestateTracer.ts   the tracers (types.ts: their contract)
 *   sink.ts       the bounded byte buffer the JSON is written into (transferred out of the worker)
 *   stepHook.ts   a cheaper per-opcode hook than ethereumjs' step event, for worker threads
 *   opcodes.ts    geth's opcode names, stack arities and JSON string encoding
 *
 * What always holds: the JSON written is geth's, byte for byte in meaning (test/trace compares
 * it with anvil's, rewriting anvil's known departures from geth); a trace never grows past its
 * sink's limit; a traced transaction runs on exactly the state the chain ran it on.
 */
export { decodeTraceOptions, DEFAULT_TRACE_TIMEOUT_MS, type TraceOptions } from './options.js'
export { type BlockToTrace, TraceError, TraceTimeoutError, traceBlockAll, traceBlockTx } from './run.js'
export { decodeParts, JsonSink, TraceTooLargeError } from './sink.js'
export { traceCall } from './traceCall.js'
