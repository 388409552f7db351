/**
 * A dev chain in process with burns in it, for exit-payload tests: a contract whose every call
 * emits a non-burn log (LOG1, topic 0x11…, no data) then an ERC-20 Transfer(caller, address(0),
 * amount = calldata word 0), i.e. a burn.
 *
 *   block 1  deploys the contract
 *   block 2  tx 0 a plain transfer (no log); tx 1 a 1559 call (block logs 0, 1); tx 2 a legacy call (logs 2, 3)
 *   block 3..5 empty
 *   block 6  a 1559 call (logs 0, 1), after the checkpoint
 * The checkpoint: id 10,000 over blocks 1..5, its root computed from the store's hashes.
 */
import type { Common } from '@ethereumjs/common'
import { createTx } from '@ethereumjs/tx'
import { Address, createContractAddress, hexToBytes } from '@ethereumjs/util'
import type { ChainStore } from '../../src/chain/store.js'
import { devAccounts } from '../../src/config/accounts.js'
import type { Database } from '../../src/db/db.js'
import {
  type Checkpoint,
  type CheckpointSource,
  checkpointRoot,
  type ExitChainReader,
  TRANSFER_TOPIC_HEX,
} from '../../src/validators/checkpoint/index.js'
import { openTestChain, validateTransaction } from './chain.js'

export const [BURNER, BURN_VALIDATOR] = devAccounts(2) as [
  { address: string; privateKey: string },
  { address: string; privateKey: string },
]
/** The amount every call burns. */
export const BURN_AMOUNT = 0x1234n
const OTHER_TOPIC = '11'.repeat(32)

/** Runtime: LOG1(topic 0x11…) with no data, then LOG3(Transfer, caller, 0) with calldata word 0. */
const RUNTIME = `7f${OTHER_TOPIC}5f5fa1` + '5f355f52' + '5f33' + `7f${TRANSFER_TOPIC_HEX.slice(2)}` + '60205fa3' + '00'
/** Bytes of the initcode's copy-and-return prefix below. */
const INIT_PREFIX_BYTES = 9
/** Initcode: copy the runtime (after the prefix) to memory and return it. */
const INITCODE = `60${(RUNTIME.length / 2).toString(16).padStart(2, '0')}8060${INIT_PREFIX_BYTES.toString(16).padStart(2, '0')}5f395ff3${RUNTIME}`

/** A CheckpointSource over a fixed list (the service reads them from the base chain). */
export class FixedCheckpoints implements CheckpointSource {
  constructor(readonly list: Checkpoint[]) {}
  async checkpointOfBlock(n: bigint) {
    return this.list.find((c) => c.start <= n && n <= c.end)
  }
  async checkpoint(id: bigint) {
    return this.list.find((c) => c.id === id)
  }
  async latest() {
    return this.list[this.list.length - 1]
  }
}

export interface BurnChain {
  db: Database
  store: ChainStore
  common: Common
  /** The store's reads under the Backend's names. */
  reader: ExitChainReader
  checkpoint: Checkpoint
  source: FixedCheckpoints
  tx: { transfer: Uint8Array; typedCall: Uint8Array; legacyCall: Uint8Array; afterCheckpoint: Uint8Array }
}

export async function openBurnChain(dir: string): Promise<BurnChain> {
  const { db, store, common, builder, admission } = await openTestChain(dir, { validator: BURN_VALIDATOR })
  const key = hexToBytes(BURNER.privateKey as `0x${string}`)
  const contract = createContractAddress(
    new Address(hexToBytes(BURNER.address as `0x${string}`)),
    0n,
  ).toString() as `0x${string}`
  const amount = `0x${BURN_AMOUNT.toString(16).padStart(64, '0')}` as const
  const fee = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 200_000n }
  const sign = (fields: Record<string, unknown>) => createTx({ ...fee, ...fields }, { common }).sign(key)
  const block = async (txs: ReturnType<typeof sign>[]) => {
    const ctx = admission()
    const ptxs = await Promise.all(txs.map((t) => validateTransaction(t.serialize(), ctx)))
    const { included } = await builder.build(ptxs, store.head.header.timestamp + 1n)
    if (included.length !== txs.length) throw new Error(`burn chain: ${txs.length - included.length} txs left out`)
  }
  await block([sign({ type: 2, nonce: 0n, data: `0x${INITCODE}` })])
  const transfer = sign({ type: 2, nonce: 1n, to: BURN_VALIDATOR.address, value: 1n, gasLimit: 21_000n })
  const typedCall = sign({ type: 2, nonce: 2n, to: contract, data: amount })
  const legacyCall = createTx(
    { type: 0, nonce: 3n, to: contract, data: amount, gasLimit: 200_000n, gasPrice: 10n ** 10n },
    { common },
  ).sign(key)
  await block([transfer, typedCall, legacyCall])
  for (let i = 0; i < 3; i++) await block([])
  const afterCheckpoint = sign({ type: 2, nonce: 4n, to: contract, data: amount })
  await block([afterCheckpoint])

  const reader: ExitChainReader = {
    canonicalHash: (n) => store.getHashByNumber(n),
    blockByHash: (h) => store.getBlockByHash(h),
    receipts: (h) => store.getReceipts(h),
    txLocation: (h) => store.getTxLocation(h),
  }
  const signer = hexToBytes(BURN_VALIDATOR.address as `0x${string}`)
  const checkpoint: Checkpoint = {
    id: 10_000n,
    start: 1n,
    end: 5n,
    root: checkpointRoot([1n, 2n, 3n, 4n, 5n].map((n) => store.getHashByNumber(n) as Uint8Array)),
    proposer: signer,
    signers: [signer],
  }
  return {
    db,
    store,
    common,
    reader,
    checkpoint,
    source: new FixedCheckpoints([checkpoint]),
    tx: {
      transfer: transfer.hash(),
      typedCall: typedCall.hash(),
      legacyCall: legacyCall.hash(),
      afterCheckpoint: afterCheckpoint.hash(),
    },
  }
}
