/**
 * State overrides of debug_traceCall (geth's override.StateOverride, the `stateOverrides`
 * member of the TraceCallConfig): per address, replace `balance`, `nonce` or `code`, replace all
 * storage with `state`, or patch slots with `stateDiff`. Decoded into plain data (sendable to a
 * worker) and applied to the throw-away state the call runs on.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { IbexError } from '../util/errors.js'
import { Address, createAccount, setLengthLeft } from '@ethereumjs/util'

export interface AccountOverride {
  address: Uint8Array
  balance: bigint | undefined
  nonce: bigint | undefined
  code: Uint8Array | undefined
  /** Replaces the whole storage. */
  state: [Uint8Array, Uint8Array][] | undefined
  /** Changes single slots. */
  stateDiff: [Uint8Array, Uint8Array][] | undefined
}

/** A malformed override object (the message follows `invalid argument N: `). */
export class OverrideError extends IbexError {
  readonly kind = 'stateOverride'
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const HEX_RE = /^0x([0-9a-fA-F]*)$/

function hexBytes(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string') throw new OverrideError(`${what}: expected a 0x-prefixed hex string`)
  const m = HEX_RE.exec(v)
  if (m === null || m[1].length % 2 !== 0) throw new OverrideError(`${what}: invalid hex string ${JSON.stringify(v)}`)
  return Uint8Array.from(Buffer.from(m[1], 'hex'))
}

function quantity(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(v)) {
    throw new OverrideError(`${what}: expected a hex quantity`)
  }
  return BigInt(v)
}

function word(v: string, what: string): Uint8Array {
  const b = hexBytes(v, what)
  if (b.length > 32) throw new OverrideError(`${what}: longer than 32 bytes`)
  return setLengthLeft(b, 32)
}

function slots(v: unknown, what: string): [Uint8Array, Uint8Array][] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new OverrideError(`${what}: expected an object`)
  return Object.entries(v as Record<string, unknown>).map(([k, val]) => [
    word(k, `${what} key`),
    word(String(val), `${what} value`),
  ])
}

/** Decodes `{address: {balance?, nonce?, code?, state?, stateDiff?}}` (null/absent = none). */
export function decodeStateOverrides(raw: unknown): AccountOverride[] {
  if (raw === undefined || raw === null) return []
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new OverrideError('stateOverrides: expected an object')
  const out: AccountOverride[] = []
  for (const [addr, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!ADDRESS_RE.test(addr)) throw new OverrideError(`stateOverrides: invalid address ${JSON.stringify(addr)}`)
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new OverrideError(`stateOverrides ${addr}: expected an object`)
    const o = v as Record<string, unknown>
    if (o.state != null && o.stateDiff != null) {
      throw new OverrideError(`account ${addr} has both 'state' and 'stateDiff'`)
    }
    out.push({
      address: Uint8Array.from(Buffer.from(addr.slice(2), 'hex')),
      balance: o.balance == null ? undefined : quantity(o.balance, `${addr} balance`),
      nonce: o.nonce == null ? undefined : quantity(o.nonce, `${addr} nonce`),
      code: o.code == null ? undefined : hexBytes(o.code, `${addr} code`),
      state: o.state == null ? undefined : slots(o.state, `${addr} state`),
      stateDiff: o.stateDiff == null ? undefined : slots(o.stateDiff, `${addr} stateDiff`),
    })
  }
  return out
}

/** Applies the overrides to `sm` (in memory only). */
export async function applyStateOverrides(
  sm: MerkleStateManager,
  overrides: readonly AccountOverride[],
): Promise<void> {
  for (const o of overrides) {
    const address = new Address(o.address)
    const account = (await sm.getAccount(address)) ?? createAccount({})
    if (o.balance !== undefined) account.balance = o.balance
    if (o.nonce !== undefined) account.nonce = o.nonce
    await sm.putAccount(address, account)
    if (o.code !== undefined) await sm.putCode(address, o.code)
    if (o.state !== undefined) {
      await sm.clearStorage(address)
      for (const [k, v] of o.state) await sm.putStorage(address, k, v)
    }
    if (o.stateDiff !== undefined) for (const [k, v] of o.stateDiff) await sm.putStorage(address, k, v)
  }
}
