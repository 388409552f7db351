/**
 * Block assembly for a producing validator: our own loop over `runTx` (ethereumjs'
 * `buildBlock` is quadratic in the number of transactions), then roots, the IBFT seal and
 * one atomic commit of block + receipts + state.
 *
 *   candidates ─▶ pre-block system calls ─▶ runTx each (skip what does not fit, drop what
 *   is invalid) ─▶ base fee to its recipient ─▶ state root ─▶ tx / receipt roots, bloom ─▶
 *   header ─▶ seal ─▶ ChainStore.commitBlock (one WriteBatch, fsynced)
 *
 * The builder keeps one state manager across blocks (its caches stay warm); after a failed
 * build it is rebuilt from the head's state root and the pending trie writes are discarded.
 */
import { createBlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, createAccount } from '@ethereumjs/util'
import { runTx, type VM } from '@ethereumjs/vm'
import { BLOOM_BYTES, logsBloom, orBloom } from '../chain/bloom.js'
import { encodeConsensusReceipt, type LogTuple, type StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import { EMPTY_UNCLES_HASH, orderedTrieRoot } from '../chain/trieRoot.js'
import { decodeExtra, encodeExtra, IBFT_MIX_HASH, ibftBlockHash, sealHeader } from '../consensus/ibft/index.js'
import { createStateManager, type TrieStore } from '../state/index.js'
import type { PoolTx } from '../txpool/index.js'
import { effectiveGasPrice } from '../txpool/validate.js'
import { applyPreBlockSystemCalls } from './systemCalls.js'
import { createChainVM, envBlock } from './vm.js'

export interface BuilderOptions {
  store: ChainStore
  common: Common
  trie: TrieStore
  /** Validator key that seals the blocks. */
  privateKey: Uint8Array
  /** `miner` of the blocks: the fee recipient. */
  coinbase: Uint8Array
  /** When set, the EIP-1559 base fee is credited to this address instead of burned. */
  baseFeeRecipient: Uint8Array | undefined
  /** fsync every block commit (true in production; crash safety depends on it). */
  syncWrites: boolean
}

export interface BuildResult {
  block: ChainBlock
  included: PoolTx[]
  /** Transactions found invalid while building (to be removed from the pool). */
  dropped: { ptx: PoolTx; reason: string }[]
}

const ZERO_HASH = new Uint8Array(32)

export class BlockBuilder {
  readonly #opts: BuilderOptions
  #sm: MerkleStateManager
  #vm: VM

  private constructor(opts: BuilderOptions, sm: MerkleStateManager, vm: VM) {
    this.#opts = opts
    this.#sm = sm
    this.#vm = vm
  }

  static async create(opts: BuilderOptions): Promise<BlockBuilder> {
    const sm = createStateManager(opts.trie, opts.common, opts.store.head.header.stateRoot)
    return new BlockBuilder(opts, sm, await createChainVM(opts.store, opts.common, sm))
  }

  async #reset(): Promise<void> {
    this.#opts.trie.discard()
    this.#sm = createStateManager(this.#opts.trie, this.#opts.common, this.#opts.store.head.header.stateRoot)
    this.#vm = await createChainVM(this.#opts.store, this.#opts.common, this.#sm)
  }

  /** Builds, seals and commits the next block on top of the current head. */
  async build(candidates: PoolTx[], timestamp: bigint): Promise<BuildResult> {
    try {
      return await this.#build(candidates, timestamp)
    } catch (err) {
      await this.#reset()
      throw err
    }
  }

  async #build(candidates: PoolTx[], timestamp: bigint): Promise<BuildResult> {
    const { store, common } = this.#opts
    const parent = store.head
    const number = parent.header.number + 1n
    const baseFee = common.isActivatedEIP(1559) ? parent.header.calcNextBaseFee() : undefined
    const parentExtra = decodeExtra(parent.header.extraData)
    const extraData = encodeExtra({
      vanity: parentExtra.vanity,
      validators: parentExtra.validators,
      proposerSeal: new Uint8Array(0),
      committedSeals: [],
      parentCommittedSeals: parentExtra.committedSeals,
      round: 0n,
    })
    const fields = {
      parentHash: parent.hash,
      uncleHash: EMPTY_UNCLES_HASH,
      coinbase: new Address(this.#opts.coinbase),
      number,
      gasLimit: parent.header.gasLimit,
      timestamp,
      extraData,
      mixHash: IBFT_MIX_HASH,
      difficulty: 1n,
      nonce: new Uint8Array(8),
      ...(baseFee !== undefined ? { baseFeePerGas: baseFee } : {}),
      ...(common.isActivatedEIP(4844) ? { blobGasUsed: 0n, excessBlobGas: 0n } : {}),
      ...(common.isActivatedEIP(4788) ? { parentBeaconBlockRoot: ZERO_HASH } : {}),
    }
    const headerOpts = { common, skipConsensusFormatValidation: true, setHardfork: false }
    const env = envBlock(createBlockHeader(fields, headerOpts))

    const sm = this.#sm
    await applyPreBlockSystemCalls(sm, common, number, timestamp, parent.hash, fields.parentBeaconBlockRoot)

    const included: PoolTx[] = []
    const dropped: BuildResult['dropped'] = []
    const receipts: StoredReceipt[] = []
    const bloom = new Uint8Array(BLOOM_BYTES)
    const blocked = new Set<string>()
    let gasUsed = 0n
    for (const ptx of candidates) {
      if (blocked.has(ptx.senderHex)) continue
      if (ptx.tx.gasLimit > fields.gasLimit - gasUsed) {
        blocked.add(ptx.senderHex) // a later nonce of this sender cannot go before it
        continue
      }
      let result: Awaited<ReturnType<typeof runTx>>
      try {
        result = await runTx(this.#vm, {
          tx: ptx.tx,
          block: env,
          skipHardForkValidation: true,
          blockGasUsed: gasUsed,
        })
      } catch (err) {
        blocked.add(ptx.senderHex)
        dropped.push({ ptx, reason: err instanceof Error ? err.message.split('\n')[0] as string : String(err) })
        continue
      }
      gasUsed += result.totalGasSpent
      const logs = (result.execResult.logs ?? []) as LogTuple[]
      const receipt: StoredReceipt = {
        type: ptx.tx.type,
        status: result.execResult.exceptionError === undefined ? 1 : 0,
        root: undefined,
        cumulativeGasUsed: gasUsed,
        gasUsed: result.totalGasSpent,
        logs,
        from: ptx.sender,
        contractAddress: result.createdAddress?.bytes,
        effectiveGasPrice: baseFee === undefined ? txGasPrice(ptx.tx) : effectiveGasPrice(ptx.tx, baseFee),
        blobGasUsed: 0n,
        blobGasPrice: 0n,
      }
      receipts.push(receipt)
      orBloom(bloom, logsBloom(logs))
      included.push(ptx)
    }

    if (this.#opts.baseFeeRecipient !== undefined && baseFee !== undefined && gasUsed > 0n) {
      const recipient = new Address(this.#opts.baseFeeRecipient)
      const account = (await sm.getAccount(recipient)) ?? createAccount({})
      account.balance += baseFee * gasUsed
      await sm.putAccount(recipient, account)
    }

    const stateRoot = await sm.getStateRoot()
    const receiptItems = receipts.map((r) => encodeConsensusReceipt(r, logsBloom(r.logs)))
    const transactionBytes = included.map((p) => p.tx.serialize())
    const header = createBlockHeader(
      {
        ...fields,
        stateRoot,
        transactionsTrie: await orderedTrieRoot(transactionBytes),
        receiptTrie: await orderedTrieRoot(receiptItems),
        logsBloom: bloom,
        gasUsed,
      },
      headerOpts,
    )
    const sealedRaw = sealHeader(header.raw(), this.#opts.privateKey, 0n)
    const hash = ibftBlockHash(sealedRaw)
    const block = await store.commitBlock(
      {
        hash,
        headerRaw: sealedRaw,
        transactionBytes,
        withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
        receipts,
        totalDifficulty: parent.totalDifficulty + 1n,
      },
      this.#opts.trie,
      this.#opts.syncWrites,
    )
    return { block, included, dropped }
  }
}

function txGasPrice(tx: TypedTransaction): bigint {
  return (tx as { gasPrice?: bigint }).gasPrice ?? 0n
}
