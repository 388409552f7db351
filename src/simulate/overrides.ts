/**
 * State overrides (geth override.StateOverride.Apply): per account, optionally move a
 * precompile away, then set nonce, code, balance, the whole storage (`state`) or single slots
 * (`stateDiff`), account by account in address order. Precompiles are a per-block map of address
 * → implementation that the caller installs in the EVM afterwards; any override of a precompile's
 * address (not only a move) takes the precompile off it, as in geth.
 */
import type { PrecompileFunc } from '@ethereumjs/evm'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, bytesToHex, toChecksumAddress } from '@ethereumjs/util'
import { SIM_ERROR, SimulationError } from './errors.js'
import type { StateOverrides } from './types.js'

/** Precompiles keyed by unprefixed lowercase address hex, as the EVM keeps them. */
export type PrecompileMap = Map<string, PrecompileFunc>

/** geth prints addresses with Hex(): EIP-55 mixed case. */
function checksummed(hex: string): string {
  return toChecksumAddress(hex)
}

export async function applyStateOverrides(
  sm: MerkleStateManager,
  overrides: StateOverrides | undefined,
  precompiles: PrecompileMap,
): Promise<void> {
  if (overrides === undefined) return
  const moved = new Set<string>()
  // geth goes through the accounts in address order, so which refusal comes first does not
  // depend on the order a client's JSON lists them in
  const ordered = [...overrides].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [addrHex, account] of ordered) {
    if (moved.has(addrHex)) {
      throw new SimulationError(
        SIM_ERROR.server,
        `account ${checksummed(addrHex)} has already been overridden by a precompile`,
      )
    }
    const key = addrHex.slice(2)
    const precompile = precompiles.get(key)
    if (account.movePrecompileTo !== undefined) {
      if (precompile === undefined) {
        throw new SimulationError(SIM_ERROR.server, `account ${checksummed(addrHex)} is not a precompile`)
      }
      const to = bytesToHex(account.movePrecompileTo)
      if (overrides.has(to))
        throw new SimulationError(SIM_ERROR.server, `account ${checksummed(to)} is already overridden`)
      precompiles.set(to.slice(2), precompile)
      moved.add(to)
    }
    if (precompile !== undefined) precompiles.delete(key)
    const address = new Address(Buffer.from(key, 'hex'))
    if (account.nonce !== undefined || account.balance !== undefined) {
      const current = (await sm.getAccount(address)) ?? new Account()
      if (account.nonce !== undefined) current.nonce = account.nonce
      if (account.balance !== undefined) current.balance = account.balance
      await sm.putAccount(address, current)
    }
    if (account.code !== undefined) {
      if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account())
      await sm.putCode(address, account.code)
    }
    if (account.state !== undefined && account.stateDiff !== undefined) {
      throw new SimulationError(SIM_ERROR.server, `account ${checksummed(addrHex)} has both 'state' and 'stateDiff'`)
    }
    if (account.state !== undefined) {
      if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account())
      await sm.clearStorage(address)
      for (const [slot, value] of account.state) await sm.putStorage(address, slot, value)
    }
    if (account.stateDiff !== undefined) {
      if ((await sm.getAccount(address)) === undefined) await sm.putAccount(address, new Account())
      for (const [slot, value] of account.stateDiff) await sm.putStorage(address, slot, value)
    }
  }
}
