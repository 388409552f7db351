/**
 * DevControl: what anvil and hardhat users do to a local chain from their tests — mine now, move
 * time, set balances, code, storage and nonces — on a chain this node seals alone (the dev
 * preset; a --genesis chain when `[dev] cheats` is set). The JSON-RPC side is
 * src/rpc/namespaces/dev/cheats.ts; this side keeps the chain consistent:
 *
 *   evm_mine, anvil_mine ─▶ sealer turn: seal N blocks now, transactions or not
 *   evm_increaseTime, evm_setNextBlockTimestamp ─▶ DevClock (devClock.ts), read by every seal
 *   anvil_set* ─▶ sealer turn (no build runs): edit the head's state (src/state/editState.ts)
 *              ─▶ ChainStore.commitStateEdit: the new root is the head's effective state,
 *                 persisted (src/chain/stateEdits.ts) ─▶ the builder and the pool read it again,
 *                 cached eth_call results are dropped
 *
 * What always holds: an edit never overlaps a build (both run as sealer turns), so the next block
 * is built on the edited state and its own sealed root replays from it (debug_trace*); reads at
 * "latest" see the edit as soon as the method answers; edits survive a restart, time offsets do
 * not (as anvil's). The methods never exist on the public networks: devCheatsEnabled refuses them
 * on chain ids 786 and 7860 and on a chain this node does not seal alone.
 */
import type { Common } from '@ethereumjs/common'
import type { ChainStore } from '../chain/store.js'
import { ConfigError } from '../config/errors.js'
import { NETWORK_CHAIN_IDS } from '../config/presets.js'
import type { IbexConfig } from '../config/types.js'
import { editState, type StateEdit } from '../state/editState.js'
import { TrieStore } from '../state/index.js'
import { IbexError } from '../util/errors.js'
import type { DevClock, TimestampNotAfterParentError } from './devClock.js'
import type { SingleValidatorSealer } from './sealer.js'

/** Chain ids the methods are never served on: they would let anyone rewrite a public chain's state. */
const PUBLIC_CHAIN_IDS: ReadonlySet<bigint> = new Set([
  BigInt(NETWORK_CHAIN_IDS.mainnet),
  BigInt(NETWORK_CHAIN_IDS.testnet),
])

/** -32602: anvil_mine / hardhat_mine asked for more blocks than `[dev] mine_max_blocks`. */
export class MineLimitError extends IbexError {
  readonly kind = 'mineLimit'
  readonly blocks: bigint
  readonly limit: number
  constructor(blocks: bigint, limit: number) {
    super(`cannot mine ${blocks} blocks at once: at most ${limit} ([dev] mine_max_blocks)`)
    this.blocks = blocks
    this.limit = limit
  }
}

/** The errors of the dev methods, for the JSON-RPC code table (src/rpc/errors.ts). */
export type DevChainError = MineLimitError | TimestampNotAfterParentError

/**
 * devCheatsEnabled: whether this node serves the dev methods. `[dev] cheats` unset means on for
 * the dev preset (`--network dev` without `--genesis`) and off elsewhere; set, it is refused on
 * the public chain ids and on a chain this node does not seal alone (edits would fork it from its
 * peers). Unset on such a chain, they are simply off.
 */
export function devCheatsEnabled(config: IbexConfig, chain: { chainId: bigint; soleValidator: boolean }): boolean {
  const set = config.dev.cheats
  const wanted = set ?? (config.network === 'dev' && config.genesisFile === undefined)
  if (!wanted) return false
  const refusal = PUBLIC_CHAIN_IDS.has(chain.chainId)
    ? `it would let any client rewrite chain ${chain.chainId}'s state`
    : chain.soleValidator
      ? undefined
      : 'this node does not seal the chain alone (a sole validator with its key), so edits would fork it from its peers'
  if (refusal === undefined) return true
  if (set === true) throw new ConfigError(`[dev] cheats is refused: ${refusal}`)
  return false
}

export interface DevControlOptions {
  store: ChainStore
  common: Common
  sealer: SingleValidatorSealer
  /** The sealer's clock (SealerOptions.clock). */
  clock: DevClock
  /** Most blocks one mine call seals (`[dev] mine_max_blocks`). */
  mineMaxBlocks: number
  /** Called after each state edit: caches of results by block hash must forget the head's. */
  onStateEdit(): void
}

/** What evm_mine and anvil_mine ask for. */
export interface MineOptions {
  /** The first block's exact timestamp (evm_mine's param): after the head's. */
  timestamp?: bigint
  /** Seconds added to the clock before each block (anvil_mine's interval). */
  intervalSeconds?: bigint
}

export class DevControl {
  readonly #o: DevControlOptions

  constructor(opts: DevControlOptions) {
    this.#o = opts
  }

  /** Seals `blocks` blocks now, with whatever the pool holds (none is fine). */
  async mine(blocks: bigint, options: MineOptions = {}): Promise<void> {
    if (blocks > BigInt(this.#o.mineMaxBlocks)) throw new MineLimitError(blocks, this.#o.mineMaxBlocks)
    await this.#o.sealer.turn(async (turn) => {
      const { clock, store } = this.#o
      if (options.timestamp !== undefined) clock.setNextBlockTimestamp(options.timestamp, store.head.header.timestamp)
      for (let i = 0n; i < blocks; i++) {
        if (options.intervalSeconds !== undefined) clock.increaseTime(options.intervalSeconds)
        await turn.seal()
      }
    })
  }

  /** evm_increaseTime: the total offset from the wall clock, seconds. */
  increaseTime(seconds: bigint): bigint {
    return this.#o.clock.increaseTime(seconds)
  }

  /** evm_setNextBlockTimestamp: checked against the head once no build is running. */
  setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    return this.#o.sealer.turn(async () => {
      this.#o.clock.setNextBlockTimestamp(timestamp, this.#o.store.head.header.timestamp)
    })
  }

  /** anvil_setBalance, anvil_setCode, anvil_setStorageAt, anvil_setNonce: the head's state, edited in place. */
  editState(edits: readonly StateEdit[]): Promise<void> {
    return this.#o.sealer.turn(async (turn) => {
      const { store, common } = this.#o
      const trie = new TrieStore(store.db)
      const root = await editState(trie, common, store.head.header.stateRoot, edits)
      await store.commitStateEdit(root, trie)
      this.#o.onStateEdit()
      await turn.stateReplaced()
    })
  }
}
