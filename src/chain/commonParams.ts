/**
 * ethereumjs' transaction and header constructors start with `common = opts.common.copy()` and
 * `common.updateParams(paramsTx)` (twice for a transaction): a JSON deep copy of the parameter
 * sets and a rebuild of the parameter cache, ~0.15 ms each, for the same parameters every time.
 * Decoding a block of 2,000 transactions paid ~0.6 s for it; every eth_call paid it too.
 *
 * memoizeParams(common) makes the repeats free for `common` and every copy made from it (a copy
 * carries the own `updateParams` property installed here): the result of applying a parameter set
 * to a parameter cache is remembered by the identity of both, so a copy holding the same cache
 * object adopts the cache the first application built. Caches are only ever replaced, never
 * changed in place (setHardfork, setEIPs and updateParams build new ones), so an identical
 * starting cache means an identical fork, EIP set and parameters, and the same result.
 */
import type { Common } from '@ethereumjs/common'

type ParamsConfig = object
/** The parts of a Common this touches (`_paramsCache` is internal to ethereumjs). */
type Internals = { _paramsCache: object; __ibexMemoParams?: true; updateParams(params: ParamsConfig): void }

/** Result caches: starting cache → parameter set → cache after applying it. */
const results = new WeakMap<object, Map<ParamsConfig, object>>()

export function memoizeParams(common: Common): void {
  const c = common as unknown as Internals
  if (c.__ibexMemoParams === true) return
  const original = c.updateParams
  Object.defineProperty(c, '__ibexMemoParams', { value: true, enumerable: true, writable: true })
  Object.defineProperty(c, 'updateParams', {
    enumerable: true,
    writable: true,
    value: function updateParams(this: Internals, params: ParamsConfig): void {
      const before = this._paramsCache
      const known = results.get(before)?.get(params)
      if (known !== undefined) {
        this._paramsCache = known
        return
      }
      original.call(this, params)
      let byParams = results.get(before)
      if (byParams === undefined) {
        byParams = new Map()
        results.set(before, byParams)
      }
      byParams.set(params, this._paramsCache)
    },
  })
}
