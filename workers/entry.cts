/**
 * The file every worker thread starts with (Piscina's `filename` for the call, trace and recovery
 * pools): CommonJS, so that Piscina's first attempt, a synchronous require(), loads it plainly. The
 * task module named by `workerData.ibexEntry` (an ES module: workers/execute.ts, trace.ts,
 * recover.ts) is imported asynchronously at start, and the worker is ready when it has loaded. Without this file Piscina require()s the ES
 * module itself; Node 20 then instantiates its graph synchronously, and a worker terminated in the
 * middle (a node stopped right after start) took the whole process down with a V8 fatal error
 * (`v8::Module::IsGraphAsync must be used on an instantiated module`).
 */
import { workerData } from 'node:worker_threads'

type Handler = (task: unknown) => unknown

const { ibexEntry } = workerData as { ibexEntry: string }
const handler: Promise<Handler> = import(ibexEntry).then((m: { default: Handler }) => m.default)
// Piscina awaits it; this branch only keeps a failed import from being reported unhandled first
handler.catch(() => undefined)

// Piscina takes a module that exports a promise of its handler and marks the worker ready only
// once it resolves: until the task module has loaded (seconds on a loaded box), no task is handed
// to this worker, so none is charged the load against its queue timeout (src/exec/pool/lane.ts).
export = handler
