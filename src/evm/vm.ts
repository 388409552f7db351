/**
 * VM construction over ibex's state and chain: BLOCKHASH reads the canonical index, the
 * state manager is the caller's (a block builder's long-lived one, or a throw-away reader).
 * Every VM is built by newVM, after the EVM patches (evmPatches.ts) are in place.
 */
import { Block, type BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { createVM, type VM, type VMOpts } from '@ethereumjs/vm'
import type { ChainStore } from '../chain/store.js'
import { installEvmPatches } from './patches.js'

/** The slice of a blockchain the EVM needs: block hashes for BLOCKHASH. */
export function blockHashSource(store: ChainStore) {
  const source = {
    async getBlock(n: number) {
      const hash = store.getHashByNumber(BigInt(n))
      if (hash === undefined) throw new Error(`block ${n} not found`)
      return { hash: () => hash }
    },
    shallowCopy() {
      return source
    },
  }
  return source
}

/** A VM on ethereumjs' interpreter with ibex's patches (evmPatches.ts) in place: every VM ibex runs. */
export async function newVM(opts: VMOpts): Promise<VM> {
  await installEvmPatches()
  return createVM(opts)
}

export async function createChainVM(store: ChainStore, common: Common, stateManager: MerkleStateManager): Promise<VM> {
  return newVM({
    common,
    stateManager,
    // biome-ignore lint/suspicious/noExplicitAny: the EVM only calls getBlock/shallowCopy
    blockchain: blockHashSource(store) as any,
  })
}

/** An ethereumjs Block carrying only a header, as runTx needs for the block environment. */
export function envBlock(header: BlockHeader): Block {
  const withdrawals = header.common.isActivatedEIP(4895) ? [] : undefined
  return new Block(header, [], [], withdrawals, { common: header.common, skipConsensusFormatValidation: true })
}
