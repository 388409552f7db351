/**
 * JSON text of the hot result shapes: what the dispatcher does now (JSON.stringify, then the
 * check for the characters Go escapes: toGoJson in src/rpc/server/dispatch.ts) against
 * fast-json-stringify serializers compiled once from a schema of each shape. The objects come
 * from src/rpc/format's own formatters (log, receipt of a 16-Transfer transferMany, EIP-1559
 * transaction, block of BLOCK_TXS transactions with hashes and in full) over synthetic inputs,
 * and each compiled serializer is checked to write the same text before anything is timed.
 *
 * What it decides (issue 16, scope 7): whether fast-json-stringify is worth wiring into the
 * dispatcher. Note that a kept (finalized) object is serialized once and its text reused
 * (src/rpc/format/cache.ts), so this cost is paid on the first answer only.
 *
 * Run: npx vitest bench --run --project unit bench/serialize-json.bench.ts
 */
import { createBlockHeader } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import fastJson, { type ObjectSchema } from 'fast-json-stringify'
import { bench, describe } from 'vitest'
import type { LogTuple, StoredReceipt } from '../src/chain/receipt.js'
import type { ChainBlock } from '../src/chain/store.js'
import { ChainLog } from '../src/filters/index.js'
import { formatBlock } from '../src/rpc/format/block.js'
import { formatLog } from '../src/rpc/format/log.js'
import { formatReceipt } from '../src/rpc/format/receipt.js'
import { formatTransaction } from '../src/rpc/format/transaction.js'
import { derivedKey } from './seed/sign.js'

/** Transactions in the block shapes (a busy block of transfers). */
const BLOCK_TXS = 200
/** Transfer logs in the receipt (the seed's transferMany). */
const RECEIPT_LOGS = 16

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
const word = (i: number): Uint8Array => new Uint8Array(32).map((_, j) => (i * 31 + j * 7) & 0xff)
const addr = (i: number): Uint8Array => word(i).subarray(12)
const key = derivedKey('serialize-bench', 0)

const txs = Array.from({ length: BLOCK_TXS }, (_, i) =>
  createFeeMarket1559Tx(
    {
      nonce: BigInt(i),
      maxFeePerGas: 100n * 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 9n,
      gasLimit: 60_000n,
      to: new Address(addr(1000 + i)),
      value: 0n,
      data: new Uint8Array(68).map((_, j) => (i + j) & 0xff),
      chainId: 1n,
    },
    { common },
  ).sign(key.privateKey),
)
const header = createBlockHeader(
  {
    number: 123_456n,
    parentHash: word(1),
    coinbase: new Address(addr(2)),
    stateRoot: word(3),
    transactionsTrie: word(4),
    receiptTrie: word(5),
    gasLimit: 60_000_000n,
    gasUsed: 12_000_000n,
    timestamp: 1_764_000_000n,
    extraData: new Uint8Array(160).fill(7),
    baseFeePerGas: 7n,
  },
  // an IBFT extraData (vanity, validators, seals) is longer than Ethereum's 32 bytes
  { common, skipConsensusFormatValidation: true },
)
const block: ChainBlock = {
  hash: word(9),
  header,
  headerRaw: [],
  transactions: txs,
  transactionBytes: [],
  uncles: [],
  withdrawals: [],
  size: 40_000,
  totalDifficulty: 123_456n,
}
const transfer = (i: number): LogTuple => [addr(50), [word(51), word(52 + i), word(99)], word(200 + i)]
const receipt = {
  type: 2,
  status: 1,
  root: undefined,
  cumulativeGasUsed: 700_000n,
  gasUsed: 700_000n,
  effectiveGasPrice: 10n ** 9n + 7n,
  from: key.address,
  contractAddress: undefined,
  logs: Array.from({ length: RECEIPT_LOGS }, (_, i) => transfer(i)),
} as unknown as StoredReceipt

const shapes = {
  log: formatLog(
    new ChainLog(
      transfer(0),
      { hash: block.hash, number: header.number, timestamp: header.timestamp, logCount: 1 },
      word(60),
      0,
      0,
    ),
  ),
  receipt: formatReceipt(block, [receipt], 0, txs[0] as (typeof txs)[number], 0),
  transaction: formatTransaction(txs[0] as (typeof txs)[number], {
    from: key.address,
    blockHash: block.hash,
    blockNumber: header.number,
    blockTimestamp: header.timestamp,
    index: 0,
    baseFee: header.baseFeePerGas,
  }),
  [`block, ${BLOCK_TXS} tx hashes`]: formatBlock(block, { fullTransactions: false, senders: [] }),
  [`block, ${BLOCK_TXS} txs in full`]: formatBlock(block, {
    fullTransactions: true,
    senders: txs.map(() => key.address),
  }),
}

// schemas: every member optional, in the formatters' insertion order (fast-json-stringify writes
// in schema order and leaves out what is absent)
const str = { type: 'string' } as const
const strOrNull = { type: ['string', 'null'] } as const
const strings = { type: 'array', items: str } as const
// (plain objects typed loosely: fast-json-stringify's schema types do not take a built-up literal)
const props = (names: string, extra: Record<string, unknown> = {}): ObjectSchema =>
  ({
    type: 'object',
    properties: { ...Object.fromEntries(names.split(' ').map((n) => [n, str])), ...extra },
  }) as ObjectSchema
const logSchema = props(
  'address topics data blockNumber transactionHash transactionIndex blockHash blockTimestamp logIndex removed',
  { topics: strings, removed: { type: 'boolean' } },
)
const receiptSchema = props(
  'blockHash blockNumber contractAddress cumulativeGasUsed effectiveGasPrice from gasUsed logs logsBloom root status to transactionHash transactionIndex type blobGasUsed blobGasPrice',
  { contractAddress: strOrNull, to: strOrNull, logs: { type: 'array', items: logSchema } },
)
const accessList = { type: 'array', items: props('address storageKeys', { storageKeys: strings }) }
const txSchema = props(
  'blockHash blockNumber blockTimestamp from gas gasPrice maxFeePerGas maxPriorityFeePerGas maxFeePerBlobGas hash input nonce to transactionIndex value type accessList chainId blobVersionedHashes authorizationList v r s yParity',
  {
    blockHash: strOrNull,
    blockNumber: strOrNull,
    to: strOrNull,
    transactionIndex: strOrNull,
    accessList,
    blobVersionedHashes: strings,
    authorizationList: { type: 'array', items: props('chainId address nonce yParity r s') },
  },
)
const headerNames =
  'number hash parentHash nonce mixHash sha3Uncles logsBloom stateRoot miner difficulty extraData gasLimit gasUsed timestamp transactionsRoot receiptsRoot baseFeePerGas withdrawalsRoot blobGasUsed excessBlobGas parentBeaconBlockRoot requestsHash size uncles transactions withdrawals'
const withdrawals = { type: 'array', items: props('index validatorIndex address amount') }
const blockSchema = (transactions: unknown) => props(headerNames, { uncles: strings, transactions, withdrawals })

const compiled: Record<string, (o: unknown) => string> = {
  log: fastJson(logSchema),
  receipt: fastJson(receiptSchema),
  transaction: fastJson(txSchema),
  [`block, ${BLOCK_TXS} tx hashes`]: fastJson(blockSchema(strings)),
  [`block, ${BLOCK_TXS} txs in full`]: fastJson(blockSchema({ type: 'array', items: txSchema })),
}

/** The dispatcher's serializer (toGoJson in src/rpc/server/dispatch.ts; hex never needs escaping). */
const GO_ESCAPED_RE = /[<>&\u2028\u2029]/
function toGoJson(value: unknown): string {
  const text = JSON.stringify(value)
  if (GO_ESCAPED_RE.test(text)) throw new Error('bench objects hold no character Go escapes')
  return text
}

for (const [name, object] of Object.entries(shapes)) {
  const fast = compiled[name] as (o: unknown) => string
  const expected = toGoJson(object)
  if (fast(object) !== expected) throw new Error(`${name}: fast-json-stringify writes other text than JSON.stringify`)
  describe(`${name} (${expected.length.toLocaleString('en-US')} chars)`, () => {
    bench('JSON.stringify (toGoJson)', () => {
      toGoJson(object)
    })
    bench('fast-json-stringify', () => {
      fast(object)
    })
  })
}
