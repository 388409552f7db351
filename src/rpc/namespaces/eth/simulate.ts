/**
 * eth_simulateV1 over src/exec/simulate: each simulated block answered as geth's
 * RPCMarshalBlock (hashes or full transactions, with their senders) plus its `calls`, whose
 * logs carry the block's hash.
 */
import { hexToBytes } from '@ethereumjs/util'
import type { ChainBlock } from '../../../chain/store.js'
import { depositContractAddress } from '../../../chain/forks.js'
import { type SimulatedBlock, type SimulatedCall, simulate } from '../../../exec/simulate/index.js'
import type { Backend } from '../../backend.js'
import { RevertError } from '../../errors.js'
import { formatBlock, type RpcObject } from '../../format/block.js'
import { toData, toQuantity } from '../../hex.js'
import { type BlockRef, BlockTag, LATEST, optional } from '../../params/index.js'
import { SimulatePayload } from '../../params/simulate.js'
import type { SimulateRequest } from '../../../exec/simulate/types.js'
import type { MethodTable } from '../../types.js'
import { genesisOf } from './config.js'

function formatCall(call: SimulatedCall, block: SimulatedBlock, txIndex: number): RpcObject {
  const txHash = toData(block.prepared[txIndex]?.hash as Uint8Array)
  const out: RpcObject = {
    returnData: toData(call.returnData),
    logs: call.logs.map(({ log, index }) => ({
      address: toData(log[0]),
      topics: log[1].map((t) => toData(t)),
      data: toData(log[2]),
      blockNumber: toQuantity(block.header.number),
      transactionHash: txHash,
      transactionIndex: toQuantity(txIndex),
      blockHash: toData(block.hash),
      blockTimestamp: toQuantity(block.header.timestamp),
      logIndex: toQuantity(index),
      removed: false,
    })),
    gasUsed: toQuantity(call.gasUsed),
    maxUsedGas: toQuantity(call.maxUsedGas),
    status: toQuantity(call.status),
  }
  if (call.error !== undefined) {
    // a revert's message carries the decoded reason, as geth's newRevertError words it
    const message = call.error.data !== undefined ? new RevertError(call.error.data).shortMessage : call.error.message
    const error: RpcObject = { message, code: call.error.code }
    if (call.error.data !== undefined) error.data = toData(call.error.data)
    out.error = error
  }
  return out
}

function formatSimulated(block: SimulatedBlock, fullTx: boolean): RpcObject {
  const asChainBlock: ChainBlock = {
    hash: block.hash,
    header: block.header,
    headerRaw: block.headerRaw,
    transactions: block.prepared.map((p) => p.tx),
    transactionBytes: [],
    uncles: [],
    withdrawals: block.header.common.isActivatedEIP(4895) ? block.withdrawals : undefined,
    size: block.size,
    totalDifficulty: 0n,
  }
  const out = formatBlock(asChainBlock, {
    fullTransactions: fullTx,
    senders: block.prepared.map((p) => p.from),
    txHashes: block.prepared.map((p) => p.hash),
  })
  out.calls = block.calls.map((c, i) => formatCall(c, block, i))
  return out
}

export const simulateMethods: MethodTable<Backend> = {
  eth_simulateV1: {
    params: [SimulatePayload, optional(BlockTag, LATEST)],
    handler: async (b, [payload, ref]) => {
      const req = payload as SimulateRequest
      const base = b.stateBlock(ref as BlockRef)
      const blocks = await simulate(
        {
          db: b.db,
          store: b.store,
          common: b.common,
          base,
          gasCap: b.config.jsonrpc.gasCap,
          timeoutMs: b.config.jsonrpc.evmTimeoutMs,
          depositContract: hexToBytes(depositContractAddress(genesisOf(b)) as `0x${string}`),
        },
        req,
      )
      return blocks.map((block) => formatSimulated(block, req.returnFullTransactions))
    },
  },
}
