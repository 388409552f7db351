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
  setEipLookup(common)
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

/** Activated EIPs as a set, per activated-EIP list (ethereumjs replaces the list, never edits it). */
const eipSets = new WeakMap<readonly number[], Set<number>>()

/**
 * ethereumjs answers isActivatedEIP by a linear search of the activated list (~100 numbers), and
 * the EVM asks it on every opcode and call frame (~4% of an eth_call). setEipLookup answers from a
 * Set built once per list: `common` and its copies (the property travels with copy()) give the
 * same answers, and a list replaced by setHardfork or setEIPs gets its own Set.
 */
export function setEipLookup(common: Common): void {
  Object.defineProperty(common, 'isActivatedEIP', {
    enumerable: true,
    writable: true,
    value: function isActivatedEIP(this: { _activatedEIPsCache: readonly number[] }, eip: number): boolean {
      const list = this._activatedEIPsCache
      let set = eipSets.get(list)
      if (set === undefined) {
        set = new Set(list)
        eipSets.set(list, set)
      }
      return set.has(eip)
    },
  })
}
