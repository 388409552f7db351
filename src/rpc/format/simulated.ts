/**
 * eth_simulateV1's answer: each simulated block as geth's RPCMarshalBlock (hashes or full
 * transactions, with their senders) plus its `calls`, whose logs carry the block's hash.
 *
 * Runs where the simulation ran — a call worker (workers/execute.ts) — because the blocks hold
 * ethereumjs headers and transactions, which lose their classes crossing threads; the JSON-ready
 * objects made here cross as plain data and the handler returns them as they are.
 */
import type { ChainBlock } from '../../chain/store.js'
import type { SimulatedBlock, SimulatedCall } from '../../exec/pool/index.js'
import { errorCodeOf, RevertError } from '../errors.js'
import { toData, toQuantity } from '../../util/hex.js'
import { formatBlock, type RpcObject } from './block.js'

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
    const error: RpcObject = { message, code: errorCodeOf(call.error.kind) }
    if (call.error.data !== undefined) error.data = toData(call.error.data)
    out.error = error
  }
  return out
}

function formatSimulatedBlock(block: SimulatedBlock, fullTx: boolean): RpcObject {
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

/** The answer of eth_simulateV1 for `blocks` (the SimulatedPresenter of the call workers). */
export function formatSimulatedBlocks(blocks: SimulatedBlock[], fullTransactions: boolean): RpcObject[] {
  return blocks.map((block) => formatSimulatedBlock(block, fullTransactions))
}
