/**
 * Shapes shared by the JSON-RPC transport (src/rpc/server), the param decoders
 * (src/rpc/params) and the namespaces (src/rpc/namespaces).
 */
import type { RpcNamespace } from '../config/types.js'

/** A param decoder turns one raw JSON value into a typed value, or throws InvalidParamsError. */
export interface ParamDecoder<T> {
  /** Decode a present value (never `undefined`). Throws InvalidParamsError with the message only (no prefix). */
  decode(raw: unknown): T
  /** When true, a missing / null value is allowed and `defaultValue` is passed instead. */
  optional: boolean
  /** Value handed to the handler when an optional param is missing or null. */
  defaultValue?: T
}

/**
 * One JSON-RPC method: its decoders and a handler receiving decoded values. Namespaces build it
 * with `method()`, which types the handler's params from the decoders; the dispatcher sees only
 * this erased shape (one Map of them, built at start-up).
 */
export interface MethodDef<Ctx = unknown> {
  readonly params: readonly ParamDecoder<unknown>[]
  /** Returns the JSON-ready result (strings, numbers, booleans, null, arrays, objects). */
  /** `client`: the caller's IP ('' when unknown), for what is limited per client (filters). */
  handler(ctx: Ctx, params: unknown[], client?: string): unknown | Promise<unknown>
}

/** The value a decoder hands over. */
export type DecodedValue<D> = D extends ParamDecoder<infer T> ? T : never

/** The tuple of values a list of decoders hands over, position by position. */
export type DecodedParams<P extends readonly ParamDecoder<unknown>[]> = { -readonly [K in keyof P]: DecodedValue<P[K]> }

/**
 * A method from its decoders and a handler whose params are typed by them:
 *
 *   method([Address, optional(BlockTag, LATEST)], (b, [address, ref]) => …)   // address: string, ref: BlockRef
 *
 * The context type comes from the table the method is put in (`MethodTable<Backend>`). The
 * definition is a plain object built once at start-up: dispatch calls `handler` directly, no
 * wrapper runs per request.
 */
export function method<Ctx, const P extends readonly ParamDecoder<unknown>[]>(
  params: P,
  handler: (ctx: Ctx, params: DecodedParams<P>, client?: string) => unknown,
): MethodDef<Ctx> {
  return { params, handler }
}

/** A namespace's literal table: method name → definition. */
export type MethodTable<Ctx = unknown> = Record<string, MethodDef<Ctx>>

export interface Namespace<Ctx = unknown> {
  name: RpcNamespace
  methods: MethodTable<Ctx>
}

/**
 * A result a handler hands over already serialized (geth's json.RawMessage): the dispatcher
 * splices it into the response as is. For large results built off the main thread (traces),
 * so they are neither parsed nor re-serialized here. It must be valid JSON in Go's encoding.
 *
 * Given as ASCII byte chunks (a trace worker's transferred output), a single call's answer is
 * written from the bytes (dispatch.ts): a megabyte trace never becomes a JS string on the main
 * thread (a string to build, flatten and encode again, and large-object garbage for its GC).
 * `text` decodes them when a string is needed after all (batches, WebSocket).
 */
export class RawJson {
  #text: string | undefined
  /** The JSON as ASCII bytes, when it came as bytes. */
  readonly bytes: readonly Uint8Array[] | undefined

  constructor(json: string | readonly Uint8Array[]) {
    if (typeof json === 'string') {
      this.#text = json
      this.bytes = undefined
    } else {
      this.#text = undefined
      this.bytes = json
    }
  }

  get text(): string {
    if (this.#text === undefined) {
      let text = ''
      for (const p of this.bytes ?? []) text += Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString('latin1')
      this.#text = text
    }
    return this.#text
  }
}
