/**
 * eth_config (EIP-7910): the fork rules in force now, next and last — chain id, EIP-2124 fork
 * id, blob schedule, precompiles and system contracts — computed as geth's BlockChainAPI.Config
 * does from the genesis config; and eth_capabilities: which history this node serves.
 */
import type { GenesisJson } from '../../../chain/common.js'
import {
  forkIdHash,
  latestTimeFork,
  precompilesAt,
  systemContractsAt,
  TIME_FORKS,
  timeForkActivation,
} from '../../../chain/forks.js'
import type { Backend } from '../../backend.js'
import { toData, toQuantity } from '../../../util/hex.js'
import { method, type MethodTable } from '../../types.js'

interface BlobScheduleEntry {
  target: number
  max: number
  baseFeeUpdateFraction: number
}

function forkConfig(b: Backend, genesis: GenesisJson, index: number) {
  const activation = timeForkActivation(genesis, index)
  const fork = TIME_FORKS[index]
  if (activation === undefined || fork === undefined) return null
  const genesisTime = BigInt(genesis.timestamp ?? 0)
  const schedule = (genesis.config?.blobSchedule ?? {}) as Record<string, BlobScheduleEntry | undefined>
  const blob = schedule[fork.name]
  return {
    activationTime: Number(genesisTime >= activation ? 0n : activation),
    blobSchedule:
      blob === undefined
        ? null
        : { target: blob.target, max: blob.max, baseFeeUpdateFraction: blob.baseFeeUpdateFraction },
    chainId: toQuantity(b.chainId),
    forkId: toData(forkIdHash(genesis, b.genesisHash, activation)),
    precompiles: precompilesAt(genesis, activation),
    systemContracts: systemContractsAt(genesis, activation),
  }
}

export const configMethods: MethodTable<Backend> = {
  eth_config: method([], (b) => {
    const genesis = b.genesis()
    const now = latestTimeFork(genesis, b.head().header.timestamp)
    const last = latestTimeFork(genesis, (1n << 64n) - 1n)
    const current = forkConfig(b, genesis, now)
    const next = now + 1 < TIME_FORKS.length ? forkConfig(b, genesis, now + 1) : null
    return { current, next, last: next === null ? null : forkConfig(b, genesis, last) }
  }),
  eth_capabilities: method([], (b) => {
    const head = b.head()
    // nothing is pruned: every kind of data is served from genesis on
    const all = { disabled: false, oldestBlock: toQuantity(0) }
    return {
      head: { number: toQuantity(head.header.number), hash: toData(head.hash) },
      state: all,
      tx: all,
      logs: all,
      receipts: all,
      blocks: all,
      stateproofs: all,
    }
  }),
}
