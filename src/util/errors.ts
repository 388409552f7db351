/**
 * The base of every error ibex raises on purpose, and how one crosses a thread.
 *
 * A module error says what went wrong (`kind`, a discriminant unique across the node) and carries
 * the facts as typed fields (NonceTooLowError: `next`, `nonce`); its `shortMessage` is the sentence
 * geth prints for it, built from those facts. Module errors live in their module
 * (txpool/errors.ts, exec/errors.ts, …) and know nothing of JSON-RPC: src/rpc/errors.ts is the
 * one place that maps a kind to a wire code and data.
 *
 *   module ──throws──▶ IbexError{kind, facts}  ──(worker? toWireError ─▶ structured clone ─▶ reviveError)──▶
 *   rpc/errors.ts toJsonRpcError: kind ─▶ {code, message, data}
 *
 * What always holds: `message === shortMessage` (what tests and logs read is what clients read);
 * `details` and `cause` are for logs only and never reach a client.
 */

export interface IbexErrorOptions {
  /** Extra context for logs (an engine's own text, a file name); never sent to clients. */
  details?: string
  cause?: unknown
}

export abstract class IbexError extends Error {
  /** What went wrong; unique per error class across the node. */
  abstract readonly kind: string
  /** One sentence, geth's wording where geth has one. */
  readonly shortMessage: string
  readonly details: string | undefined

  constructor(shortMessage: string, options: IbexErrorOptions = {}) {
    super(shortMessage, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.shortMessage = shortMessage
    this.details = options.details
  }
}

/**
 * An IbexError as plain data: an Error thrown in a worker reaches the main thread stripped of its
 * class and fields, so the pool sends this instead and revives it on the other side.
 */
export interface ErrorWire {
  /** The class name, to find the class again. */
  name: string
  shortMessage: string
  details: string | undefined
  /** The instance's own fields (kind and the facts): bigints and byte arrays clone as they are. */
  fields: Record<string, unknown>
}

/** toWireError: `err` as structured-cloneable data. */
export function toWireError(err: IbexError): ErrorWire {
  return { name: err.constructor.name, shortMessage: err.shortMessage, details: err.details, fields: { ...err } }
}

/** A revived error whose class the receiving side does not know: its kind and facts survive. */
class RemoteError extends IbexError {
  readonly kind: string
  constructor(wire: ErrorWire) {
    super(wire.shortMessage, { details: wire.details })
    this.kind = String(wire.fields.kind)
  }
}

/**
 * reviveError: the error `wire` describes, as an instance of its class when `classes` holds it
 * (instanceof and the typed fields work as before the hop), else with its kind and facts only.
 */
export function reviveError(
  wire: ErrorWire,
  classes: ReadonlyMap<string, abstract new (...args: never[]) => IbexError>,
): IbexError {
  const cls = classes.get(wire.name)
  const err: IbexError = cls === undefined ? new RemoteError(wire) : Object.create(cls.prototype)
  if (cls !== undefined) {
    // built without its constructor (the facts are already computed): set what Error would
    Object.defineProperty(err, 'message', { value: wire.shortMessage, writable: true, configurable: true })
    Object.defineProperty(err, 'stack', {
      value: `${wire.name}: ${wire.shortMessage}`,
      writable: true,
      configurable: true,
    })
  }
  return Object.assign(err, wire.fields)
}

/** errorClasses: a lookup for reviveError, by class name. */
export function errorClasses(
  ...classes: (abstract new (
    ...args: never[]
  ) => IbexError)[]
): ReadonlyMap<string, abstract new (...args: never[]) => IbexError> {
  return new Map(classes.map((c) => [c.name, c]))
}
