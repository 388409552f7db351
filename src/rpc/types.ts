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

/** One JSON-RPC method: its decoders and a handler receiving decoded values. */
export interface MethodDef<Ctx = unknown> {
  params: ParamDecoder<unknown>[]
  /** Returns the JSON-ready result (strings, numbers, booleans, null, arrays, objects). */
  handler(ctx: Ctx, params: unknown[]): unknown | Promise<unknown>
}

/** A namespace's literal table: method name → definition. */
export type MethodTable<Ctx = unknown> = Record<string, MethodDef<Ctx>>

export interface Namespace<Ctx = unknown> {
  name: RpcNamespace
  methods: MethodTable<Ctx>
}

/**
 * A result a handler hands over already serialized (geth's json.RawMessage): the dispatcher
 * splices `text` into the response as is. For large results built off the main thread (traces),
 * so they are neither parsed nor re-serialized here. `text` must be valid JSON in Go's encoding.
 */
export class RawJson {
  readonly text: string
  constructor(text: string) {
    this.text = text
  }
}
