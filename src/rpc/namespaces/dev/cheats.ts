/**
 * The test controls anvil and hardhat users call from their tests, in three namespaces (`evm`,
 * `anvil`, `hardhat` of `[jsonrpc] api`), served only where `[dev] cheats` is on — the dev preset
 * by default, never chain ids 786/7860 (src/consensus/devControl.ts devCheatsEnabled). Elsewhere the
 * tables are not registered at all, so every method answers -32601 `the method X does not
 * exist/is not available`.
 *
 *   evm_mine [ts | {timestamp, blocks}]     "0x0"    seal now, transactions or not
 *   anvil_mine / hardhat_mine [n, interval] null     n blocks, the clock moved `interval` s before each
 *   evm_increaseTime [s]                    offset   total offset from the wall clock, a JSON number
 *   evm_setNextBlockTimestamp [ts]          null     the next block's exact timestamp (> head's)
 *   anvil_/hardhat_ setBalance, setCode, setNonce   null
 *   anvil_/hardhat_ setStorageAt            true
 *
 * Answers are anvil's for every name, hardhat_ ones included (anvil serves both the same way).
 * The state setters edit the head's state in place (src/chain/stateEdits.ts): reads at latest see
 * the edit when the method answers, the next transaction runs on it, no block is sealed.
 */
import type { Backend, DevChain } from '../../backend.js'
import { Address, Data, optional } from '../../params/index.js'
import { type MethodDef, method, type Namespace } from '../../types.js'
import { EvmMineOptions, StorageWord, U64, U256 } from './cheatsParams.js'

/** anvil's answer to evm_mine. */
const EVM_MINE_RESULT = '0x0'

/** The backend's dev chain; the tables are registered only where there is one (src/rpc/index.ts). */
function dev(b: Backend): DevChain {
  if (b.devChain === undefined) throw new Error('dev methods registered without a dev chain')
  return b.devChain
}

const evmMine: MethodDef<Backend> = method([optional(EvmMineOptions, undefined)], async (b, [options]) => {
  await dev(b).mine(options?.blocks ?? 1n, { timestamp: options?.timestamp })
  return EVM_MINE_RESULT
})

const mine: MethodDef<Backend> = method(
  [optional(U64, 1n), optional(U64, undefined)],
  async (b, [blocks, interval]) => {
    await dev(b).mine(blocks, { intervalSeconds: interval })
    return null
  },
)

const increaseTime: MethodDef<Backend> = method([U64], (b, [seconds]) => Number(dev(b).increaseTime(seconds)))

const setNextBlockTimestamp: MethodDef<Backend> = method([U64], async (b, [timestamp]) => {
  await dev(b).setNextBlockTimestamp(timestamp)
  return null
})

const setBalance: MethodDef<Backend> = method([Address, U256], async (b, [address, balance]) => {
  await dev(b).editState([{ kind: 'balance', address, balance }])
  return null
})

const setCode: MethodDef<Backend> = method([Address, Data], async (b, [address, code]) => {
  await dev(b).editState([{ kind: 'code', address, code }])
  return null
})

const setNonce: MethodDef<Backend> = method([Address, U64], async (b, [address, nonce]) => {
  await dev(b).editState([{ kind: 'nonce', address, nonce }])
  return null
})

const setStorageAt: MethodDef<Backend> = method(
  [Address, StorageWord, StorageWord],
  async (b, [address, slot, value]) => {
    await dev(b).editState([{ kind: 'storage', address, slot, value }])
    return true
  },
)

export const evmNamespace: Namespace<Backend> = {
  name: 'evm',
  methods: {
    evm_mine: evmMine,
    evm_increaseTime: increaseTime,
    evm_setNextBlockTimestamp: setNextBlockTimestamp,
  },
}

export const anvilNamespace: Namespace<Backend> = {
  name: 'anvil',
  methods: {
    anvil_mine: mine,
    // anvil's aliases of the evm_ time methods
    anvil_increaseTime: increaseTime,
    anvil_setNextBlockTimestamp: setNextBlockTimestamp,
    anvil_setBalance: setBalance,
    anvil_setCode: setCode,
    anvil_setNonce: setNonce,
    anvil_setStorageAt: setStorageAt,
  },
}

export const hardhatNamespace: Namespace<Backend> = {
  name: 'hardhat',
  methods: {
    hardhat_mine: mine,
    hardhat_setBalance: setBalance,
    hardhat_setCode: setCode,
    hardhat_setNonce: setNonce,
    hardhat_setStorageAt: setStorageAt,
  },
}

/** The namespaces of the test controls, registered where the node has a dev chain. */
export const CHEAT_NAMESPACES: readonly Namespace<Backend>[] = [evmNamespace, anvilNamespace, hardhatNamespace]
