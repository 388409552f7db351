/**
 * eth_subscribe / eth_unsubscribe of one WebSocket connection, answered as geth's rpc handler
 * does: the first param names the subscription (`non-array args`, `expected subscription name
 * as first argument`: -32602), an unknown name is -32601 `no "x" subscription in eth namespace`,
 * the remaining params go through the subscription's decoders; unsubscribing an unknown id is
 * -32000 `subscription not found`. The subscriptions themselves live in src/filters; their items
 * become notification texts here (NotificationWriter, src/rpc/format/filterChanges.ts).
 */
import type { SubscriptionHub, SubscriptionKind, Subscriptions } from '../../../filters/index.js'
import { NotificationWriter } from '../../format/filterChanges.js'
import { ERROR_CODE, InvalidParamsError, NonArrayArgsError, RpcError, SubscriptionNotFoundError } from '../../errors.js'
import { Bool, type FilterCriteria, FilterOptions, optional, stringParam } from '../../params/index.js'
import { decodeParams, type RpcSession } from '../../server/dispatch.js'
import type { DecodedParams, ParamDecoder } from '../../types.js'

interface SubscriptionOptions {
  query?: FilterCriteria
  fullTx?: boolean
}

interface SubscriptionDef {
  kind: SubscriptionKind
  /** Decoders of the params after the name. */
  readonly params: readonly ParamDecoder<unknown>[]
  options(args: unknown[]): SubscriptionOptions
}

/** A subscription whose options are typed by its param decoders (as `method()` does for methods). */
function subscription<const P extends readonly ParamDecoder<unknown>[]>(
  kind: SubscriptionKind,
  params: P,
  options: (args: DecodedParams<P>) => SubscriptionOptions,
): SubscriptionDef {
  return { kind, params, options }
}

/** The eth subscriptions, by name (geth's FilterAPI subscription methods). */
export const ETH_SUBSCRIPTIONS: Readonly<Record<string, SubscriptionDef>> = {
  newHeads: subscription('newHeads', [], () => ({})),
  logs: subscription('logs', [FilterOptions], ([criteria]) => ({ query: criteria })),
  newPendingTransactions: subscription('newPendingTransactions', [optional(Bool, false)], ([fullTx]) => ({ fullTx })),
}

const NAME = stringParam('string')

/** One connection's eth subscriptions behind the dispatcher's RpcSession. */
export class EthSubscriptionSession implements RpcSession {
  readonly #subs: Subscriptions
  readonly #enabled: boolean
  readonly client: string

  /** `enabled`: whether the eth namespace is served at all; `client`: the connection's IP (per-IP limits). */
  constructor(hub: SubscriptionHub, send: (text: string) => void, enabled: boolean, client = '') {
    const writer = new NotificationWriter()
    this.#subs = hub.connection((id, item) => send(writer.text(id, item)), client)
    this.#enabled = enabled
    this.client = client
  }

  subscribe(namespace: string, params: unknown): string {
    if (!Array.isArray(params)) throw new NonArrayArgsError()
    const name = params[0]
    if (typeof name !== 'string') throw new InvalidParamsError('expected subscription name as first argument')
    const def =
      namespace === 'eth' && this.#enabled && Object.hasOwn(ETH_SUBSCRIPTIONS, name)
        ? ETH_SUBSCRIPTIONS[name]
        : undefined
    if (def === undefined) {
      throw new RpcError(ERROR_CODE.methodNotFound, `no ${JSON.stringify(name)} subscription in ${namespace} namespace`)
    }
    const args = decodeParams([NAME, ...def.params], params).slice(1)
    return this.#subs.add(def.kind, def.options(args))
  }

  unsubscribe(id: string): boolean {
    if (!this.#subs.remove(id)) throw new SubscriptionNotFoundError()
    return true
  }

  /** Starts delivering the subscriptions whose ids were just answered. */
  activate(): void {
    this.#subs.activate()
  }

  close(): void {
    this.#subs.close()
  }
}
