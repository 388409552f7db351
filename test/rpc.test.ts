/**
 * Raw JSON-RPC over HTTP, compared with what geth answers: the envelope and its error codes and
 * messages, batches, not-found answers, revert errors, transaction-pool rejections, block tags
 * (incl. EIP-1898), and the exact field sets of blocks, transactions, receipts and logs of a
 * Prague chain (geth ≥ 1.16: no totalDifficulty; blockTimestamp on transactions and logs).
 */
import { type Abi, encodeErrorResult, encodeFunctionData, type Hex, keccak256, pad, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileContract } from './helpers/compile.js'
import { DEV_ACCOUNTS, DEV_BALANCE_WEI, DEV_CHAIN_ID } from './helpers/dev.js'
import { headerFieldList, hexToBytes, RLP, type RpcBlock } from './helpers/header.js'
import { cleanupNodes, type IbexNode, rawRpc, rpc, rpcResponse, startNode, waitForReceipt } from './helpers/node.js'
import { currentFees, sendTx, signTx } from './helpers/tx.js'

const COUNTER = compileContract('Counter')
const abi = COUNTER.abi as unknown as Abi
const KEY0 = DEV_ACCOUNTS[0].privateKey
const ADDR0 = DEV_ACCOUNTS[0].address
const ZERO_HASH = `0x${'00'.repeat(32)}`
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'
const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'
/** sha256 of nothing: EIP-7685 requestsHash of a block without requests. */
const EMPTY_REQUESTS_HASH = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
/** DESIGN: mixHash carries the IBFT digest. */
const IBFT_MIX_HASH = '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365'
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/
const HASH32 = /^0x[0-9a-f]{64}$/
const ADDRESS = /^0x[0-9a-f]{40}$/

/** geth's eth_getBlockByNumber keys for a Prague block (execution-apis get-block-prague-fork). */
const BLOCK_KEYS = [
  'baseFeePerGas',
  'blobGasUsed',
  'difficulty',
  'excessBlobGas',
  'extraData',
  'gasLimit',
  'gasUsed',
  'hash',
  'logsBloom',
  'miner',
  'mixHash',
  'nonce',
  'number',
  'parentBeaconBlockRoot',
  'parentHash',
  'receiptsRoot',
  'requestsHash',
  'sha3Uncles',
  'size',
  'stateRoot',
  'timestamp',
  'transactions',
  'transactionsRoot',
  'uncles',
  'withdrawals',
  'withdrawalsRoot',
].sort()
const TX_COMMON_KEYS = [
  'blockHash',
  'blockNumber',
  'blockTimestamp',
  'from',
  'gas',
  'gasPrice',
  'hash',
  'input',
  'nonce',
  'r',
  's',
  'to',
  'transactionIndex',
  'type',
  'v',
  'value',
]
/** EIP-155 legacy: geth adds chainId when the signature is protected. */
const TX_LEGACY_KEYS = [...TX_COMMON_KEYS, 'chainId'].sort()
const TX_2930_KEYS = [...TX_COMMON_KEYS, 'chainId', 'accessList', 'yParity'].sort()
const TX_1559_KEYS = [...TX_2930_KEYS, 'maxFeePerGas', 'maxPriorityFeePerGas'].sort()
const RECEIPT_KEYS = [
  'blockHash',
  'blockNumber',
  'contractAddress',
  'cumulativeGasUsed',
  'effectiveGasPrice',
  'from',
  'gasUsed',
  'logs',
  'logsBloom',
  'status',
  'to',
  'transactionHash',
  'transactionIndex',
  'type',
].sort()
const LOG_KEYS = [
  'address',
  'blockHash',
  'blockNumber',
  'blockTimestamp',
  'data',
  'logIndex',
  'removed',
  'topics',
  'transactionHash',
  'transactionIndex',
].sort()

let node: IbexNode
let url: string
let counter: Hex
const hashes: { deploy: Hex; eip1559: Hex; legacy: Hex; eip2930: Hex; increment: Hex } = {} as never

const keys = (o: object) => Object.keys(o).sort()

async function mine(hashP: Promise<Hex>): Promise<Hex> {
  const hash = await hashP
  const receipt = await waitForReceipt(url, hash)
  if (receipt.status !== '0x1') throw new Error(`setup tx ${hash} failed: ${JSON.stringify(receipt)}`)
  return hash
}

beforeAll(async () => {
  node = await startNode()
  url = node.url
  hashes.deploy = await mine(sendTx(url, KEY0, { to: null, data: COUNTER.bytecode, gas: 1_000_000n }))
  counter = (await rpc(url, 'eth_getTransactionReceipt', [hashes.deploy])).contractAddress
  const to = DEV_ACCOUNTS[5].address
  hashes.eip1559 = await mine(sendTx(url, KEY0, { to, value: 1000n, type: 'eip1559' }))
  hashes.legacy = await mine(sendTx(url, KEY0, { to, value: 1000n, type: 'legacy' }))
  hashes.eip2930 = await mine(sendTx(url, KEY0, { to, value: 1000n, type: 'eip2930' }))
  hashes.increment = await mine(
    sendTx(url, KEY0, { to: counter, data: encodeFunctionData({ abi, functionName: 'increment' }), gas: 100_000n }),
  )
})

afterAll(cleanupNodes)

describe('JSON-RPC envelope', () => {
  it('answers a parse error with -32700 and id null', async () => {
    const res = await rawRpc(url, '{"jsonrpc":"2.0","id":1,"method":')
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
  })

  it('answers an unknown method with -32601 and geth wording', async () => {
    const res = await rawRpc(url, '{"jsonrpc":"2.0","id":7,"method":"foo_bar","params":[]}')
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'the method foo_bar does not exist/is not available' },
    })
  })

  it('echoes string ids, accepts a missing params member, serves application/json', async () => {
    const res = await rawRpc(url, '{"jsonrpc":"2.0","id":"abc","method":"eth_chainId"}')
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 'abc', result: '0x539' })
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  })

  it('answers a request without method with -32600 invalid request', async () => {
    const res = await rawRpc(url, '{"jsonrpc":"2.0","id":1}')
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'invalid request' } })
  })

  it('rejects bad params with -32602 "invalid argument N: …"', async () => {
    expect((await rpcResponse(url, 'eth_getBlockByNumber', ['2', false])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: hex string without 0x prefix',
    })
    const badAddress = (await rpcResponse(url, 'eth_getBalance', ['0xnothex', 'latest'])).error
    expect(badAddress?.code).toBe(-32602)
    expect(badAddress?.message).toMatch(/^invalid argument 0: /)
    const badSha = (await rpcResponse(url, 'web3_sha3', ['hello'])).error
    expect(badSha?.code).toBe(-32602)
    expect(badSha?.message).toMatch(/^invalid argument 0: .*hex string without 0x prefix/)
    expect((await rpcResponse(url, 'eth_getStorageAt', [ADDR0, '0xasdf', 'latest'])).error).toEqual({
      code: -32602,
      message: 'invalid hex in storage key: "0xasdf"',
    })
  })

  it('rejects missing and surplus arguments with -32602', async () => {
    expect((await rpcResponse(url, 'eth_getBalance', [])).error).toEqual({
      code: -32602,
      message: 'missing value for required argument 0',
    })
    expect((await rpcResponse(url, 'eth_getBlockByNumber', ['latest'])).error).toEqual({
      code: -32602,
      message: 'missing value for required argument 1',
    })
    expect((await rpcResponse(url, 'eth_blockNumber', [1])).error).toEqual({
      code: -32602,
      message: 'too many arguments, want at most 0',
    })
  })

  it('answers a batch of mixed good and bad calls in order', async () => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'foo_bar', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_getBalance', params: [] },
      { jsonrpc: '2.0', id: 4, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 5, method: 'net_version', params: [] },
    ])
    const res = await rawRpc(url, body)
    const out = res.json as { id: number; result?: unknown; error?: unknown }[]
    expect(Array.isArray(out)).toBe(true)
    expect(out.map((r) => r.id)).toEqual([1, 2, 3, 4, 5])
    expect(out[0]).toEqual({ jsonrpc: '2.0', id: 1, result: '0x539' })
    expect(out[1]).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32601, message: 'the method foo_bar does not exist/is not available' },
    })
    expect(out[2]).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32602, message: 'missing value for required argument 0' },
    })
    expect(out[3].result).toMatch(QUANTITY)
    expect(out[4]).toEqual({ jsonrpc: '2.0', id: 5, result: String(DEV_CHAIN_ID) })
  })

  it('leaves notifications (no id) out of a batch answer', async () => {
    const res = await rawRpc(
      url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
      ]),
    )
    expect(res.json).toEqual([{ jsonrpc: '2.0', id: 1, result: '0x539' }])
  })

  it('answers an empty batch with -32600 "empty batch"', async () => {
    const res = await rawRpc(url, '[]')
    expect(res.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } })
  })
})

describe('not found is null', () => {
  it.each([
    ['eth_getBlockByNumber', ['0xffffff', false]],
    ['eth_getBlockByHash', [UNKNOWN_HASH, true]],
    ['eth_getBlockByHash', [ZERO_HASH, false]],
    ['eth_getTransactionByHash', [UNKNOWN_HASH]],
    ['eth_getTransactionReceipt', [UNKNOWN_HASH]],
    ['eth_getBlockTransactionCountByHash', [UNKNOWN_HASH]],
    ['eth_getBlockTransactionCountByNumber', ['0xffffff']],
    ['eth_getTransactionByBlockNumberAndIndex', ['latest', '0xff']],
    ['eth_getTransactionByBlockHashAndIndex', [UNKNOWN_HASH, '0x0']],
  ])('%s %j → null', async (method, params) => {
    expect(await rpcResponse(url, method, params)).toEqual({ jsonrpc: '2.0', id: expect.anything(), result: null })
  })
})

describe('eth_call / eth_estimateGas reverts', () => {
  const call = (data: Hex, from: Hex = ADDR0) => [{ from, to: counter, data }, 'latest']
  const tooBig = encodeErrorResult({
    abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
    errorName: 'Error',
    args: ['counter: too big'],
  })

  it('eth_call revert → code 3, "execution reverted: <reason>", data = revert bytes', async () => {
    const data = encodeFunctionData({ abi, functionName: 'incrementBy', args: [1000n] })
    expect((await rpcResponse(url, 'eth_call', call(data))).error).toEqual({
      code: 3,
      message: 'execution reverted: counter: too big',
      data: tooBig,
    })
  })

  it('eth_estimateGas revert → the same error', async () => {
    const data = encodeFunctionData({ abi, functionName: 'alwaysTooBig' })
    expect((await rpcResponse(url, 'eth_estimateGas', [{ from: ADDR0, to: counter, data }])).error).toEqual({
      code: 3,
      message: 'execution reverted: counter: too big',
      data: tooBig,
    })
  })

  it('custom error → code 3, "execution reverted", data = the encoded error', async () => {
    const other = DEV_ACCOUNTS[3].address
    const data = encodeFunctionData({ abi, functionName: 'restricted' })
    expect((await rpcResponse(url, 'eth_call', call(data, other))).error).toEqual({
      code: 3,
      message: 'execution reverted',
      data: encodeErrorResult({ abi, errorName: 'Unauthorized', args: [other] }),
    })
  })

  it('panic → code 3 with Panic(0x12) data', async () => {
    const data = encodeFunctionData({ abi, functionName: 'divide', args: [0n] })
    const err = (await rpcResponse(url, 'eth_call', call(data))).error
    expect(err?.code).toBe(3)
    expect(err?.message).toMatch(/^execution reverted/)
    expect(err?.data).toBe(`0x4e487b71${'0'.repeat(62)}12`)
  })

  it('successful calls return the ABI-encoded result; no code → "0x"', async () => {
    const data = encodeFunctionData({ abi, functionName: 'get' })
    expect(await rpc(url, 'eth_call', call(data))).toBe(pad(toHex(1n), { size: 32 }))
    expect(await rpc(url, 'eth_call', [{ to: DEV_ACCOUNTS[7].address, data: '0x12345678' }, 'latest'])).toBe('0x')
  })
})

describe('eth_sendRawTransaction rejections', () => {
  it('returns the transaction hash for an accepted transaction', async () => {
    const raw = await signTx(url, KEY0, { to: DEV_ACCOUNTS[6].address, value: 1n })
    expect(await rpc(url, 'eth_sendRawTransaction', [raw])).toBe(keccak256(raw))
    await waitForReceipt(url, keccak256(raw))
  })

  it('a used nonce → -32000 "nonce too low: next nonce N, tx nonce 0"', async () => {
    const next = BigInt(await rpc(url, 'eth_getTransactionCount', [ADDR0, 'pending']))
    const raw = await signTx(url, KEY0, { to: DEV_ACCOUNTS[6].address, value: 1n, nonce: 0 })
    expect((await rpcResponse(url, 'eth_sendRawTransaction', [raw])).error).toEqual({
      code: -32000,
      message: `nonce too low: next nonce ${next}, tx nonce 0`,
    })
  })

  it('an empty account → -32000 "insufficient funds for gas * price + value: …"', async () => {
    const key = generatePrivateKey()
    const fees = await currentFees(url)
    const value = 5n
    const raw = await signTx(url, key, { to: ADDR0, value, nonce: 0 }, fees)
    const cost = 21_000n * fees.maxFeePerGas + value
    expect((await rpcResponse(url, 'eth_sendRawTransaction', [raw])).error).toEqual({
      code: -32000,
      message: `insufficient funds for gas * price + value: balance 0, tx cost ${cost}, overshot ${cost}`,
    })
    expect(privateKeyToAccount(key).address).toMatch(/^0x/)
  })

  it('gas below the intrinsic cost → -32000 "intrinsic gas too low: gas 20000, minimum needed 21000"', async () => {
    const raw = await signTx(url, KEY0, { to: ADDR0, value: 1n, gas: 20_000n })
    expect((await rpcResponse(url, 'eth_sendRawTransaction', [raw])).error).toEqual({
      code: -32000,
      message: 'intrinsic gas too low: gas 20000, minimum needed 21000',
    })
  })

  it('another chain id → -32000 mentioning the chain id', async () => {
    const fees = await currentFees(url)
    const nonce = Number(BigInt(await rpc(url, 'eth_getTransactionCount', [ADDR0, 'pending'])))
    const raw = await privateKeyToAccount(KEY0).signTransaction({
      chainId: 1,
      type: 'eip1559',
      to: ADDR0,
      value: 1n,
      gas: 21_000n,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    })
    const err = (await rpcResponse(url, 'eth_sendRawTransaction', [raw])).error
    expect(err?.code).toBe(-32000)
    expect(err?.message).toMatch(/invalid chain id/)
  })
})

describe('block tags and EIP-1898', () => {
  it('latest, earliest, pending, safe, finalized', async () => {
    const head = await rpc(url, 'eth_blockNumber')
    const latest = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(latest.number).toBe(head)
    const earliest = await rpc(url, 'eth_getBlockByNumber', ['earliest', false])
    expect(earliest.number).toBe('0x0')
    expect(earliest.parentHash).toBe(ZERO_HASH)
    expect((await rpc(url, 'eth_getBlockByNumber', ['0x0', false])).hash).toBe(earliest.hash)
    const pending = await rpc(url, 'eth_getBlockByNumber', ['pending', false])
    expect(pending).not.toBeNull()
    expect(BigInt(pending.number)).toBeGreaterThanOrEqual(BigInt(head))
    // immediate finality (DESIGN): safe and finalized are latest
    expect((await rpc(url, 'eth_getBlockByNumber', ['safe', false])).hash).toBe(latest.hash)
    expect((await rpc(url, 'eth_getBlockByNumber', ['finalized', false])).hash).toBe(latest.hash)
  })

  it('accepts {blockHash} and {blockNumber} objects (EIP-1898)', async () => {
    const latest = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    const byNumber = await rpc(url, 'eth_getBalance', [ADDR0, latest.number])
    expect(await rpc(url, 'eth_getBalance', [ADDR0, { blockHash: latest.hash }])).toBe(byNumber)
    expect(await rpc(url, 'eth_getBalance', [ADDR0, { blockHash: latest.hash, requireCanonical: true }])).toBe(byNumber)
    expect(await rpc(url, 'eth_getBalance', [ADDR0, { blockNumber: '0x0' }])).toBe(toHex(DEV_BALANCE_WEI))
    expect(await rpc(url, 'eth_getTransactionCount', [ADDR0, { blockNumber: '0x0' }])).toBe('0x0')
    const genesis = await rpc(url, 'eth_getBlockByNumber', ['0x0', false])
    expect(await rpc(url, 'eth_getCode', [counter, { blockHash: genesis.hash }])).toBe('0x')
    expect(await rpc(url, 'eth_getCode', [counter, { blockHash: latest.hash }])).toBe(COUNTER.deployedBytecode)
  })

  it('unknown block hash → -32000 "header for hash not found"; future number → "header not found"', async () => {
    expect((await rpcResponse(url, 'eth_getBalance', [ADDR0, { blockHash: UNKNOWN_HASH }])).error).toEqual({
      code: -32000,
      message: 'header for hash not found',
    })
    expect((await rpcResponse(url, 'eth_getBalance', [ADDR0, '0xffffff'])).error).toEqual({
      code: -32000,
      message: 'header not found',
    })
  })
})

describe('formats (geth field sets)', () => {
  function checkBlockValues(b: RpcBlock) {
    expect(keys(b)).toEqual(BLOCK_KEYS)
    for (const k of ['number', 'difficulty', 'gasLimit', 'gasUsed', 'timestamp', 'size', 'baseFeePerGas']) {
      expect(b[k], k).toMatch(QUANTITY)
    }
    for (const k of ['hash', 'parentHash', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'withdrawalsRoot']) {
      expect(b[k], k).toMatch(HASH32)
    }
    expect(b.miner).toMatch(ADDRESS)
    expect(b.logsBloom).toMatch(/^0x[0-9a-f]{512}$/)
    expect(b.sha3Uncles).toBe(EMPTY_UNCLES_HASH)
    expect(b.mixHash).toBe(IBFT_MIX_HASH)
    expect(b.nonce).toBe('0x0000000000000000')
    expect(b.difficulty).toBe('0x1')
    expect(b.uncles).toEqual([])
    expect(b.withdrawals).toEqual([])
    expect(b.withdrawalsRoot).toBe(EMPTY_TRIE_ROOT)
    expect(b.blobGasUsed).toBe('0x0')
    expect(b.excessBlobGas).toBe('0x0')
    expect(b.parentBeaconBlockRoot).toMatch(HASH32)
    expect(b.requestsHash).toBe(EMPTY_REQUESTS_HASH)
  }

  it('genesis block: Prague field set, empty roots', async () => {
    const g = await rpc(url, 'eth_getBlockByNumber', ['0x0', false])
    checkBlockValues(g)
    expect(g.transactions).toEqual([])
    expect(g.transactionsRoot).toBe(EMPTY_TRIE_ROOT)
    expect(g.receiptsRoot).toBe(EMPTY_TRIE_ROOT)
    expect(g.gasUsed).toBe('0x0')
  })

  it('a block with a transaction: field set, tx hashes, size = RLP length of the block', async () => {
    const receipt = await rpc(url, 'eth_getTransactionReceipt', [hashes.increment])
    const b = await rpc(url, 'eth_getBlockByHash', [receipt.blockHash, false])
    checkBlockValues(b)
    expect(b.transactions).toContain(hashes.increment)
    expect(BigInt(b.gasUsed)).toBeGreaterThanOrEqual(BigInt(receipt.gasUsed))
    expect(await rpc(url, 'eth_getBlockTransactionCountByHash', [b.hash])).toBe(toHex(b.transactions.length))
    const txItems: unknown[] = []
    for (const h of b.transactions as Hex[]) {
      const raw = hexToBytes(await rpc(url, 'eth_getRawTransactionByHash', [h]))
      expect(keccak256(raw)).toBe(h)
      txItems.push(raw[0] >= 0xc0 ? RLP.decode(raw) : raw)
    }
    // biome-ignore lint/suspicious/noExplicitAny: nested RLP input
    const encoded = RLP.encode([headerFieldList(b), txItems as any, [], []])
    expect(BigInt(b.size)).toBe(BigInt(encoded.length))
  })

  it('full transaction objects per type (legacy EIP-155, 2930, 1559)', async () => {
    const expectations: [Hex, string[], string][] = [
      [hashes.legacy, TX_LEGACY_KEYS, '0x0'],
      [hashes.eip2930, TX_2930_KEYS, '0x1'],
      [hashes.eip1559, TX_1559_KEYS, '0x2'],
    ]
    for (const [hash, keySet, type] of expectations) {
      const tx = await rpc(url, 'eth_getTransactionByHash', [hash])
      expect(keys(tx), type).toEqual(keySet)
      expect(tx.type).toBe(type)
      expect(tx.hash).toBe(hash)
      expect(tx.chainId).toBe('0x539')
      expect(tx.from).toBe(ADDR0.toLowerCase())
      const receipt = await rpc(url, 'eth_getTransactionReceipt', [hash])
      expect(tx.gasPrice).toBe(receipt.effectiveGasPrice)
      const block = await rpc(url, 'eth_getBlockByHash', [tx.blockHash, true])
      expect(tx.blockTimestamp).toBe(block.timestamp)
      const inBlock = (block.transactions as { hash: string }[]).find((t) => t.hash === hash)
      expect(inBlock).toEqual(tx)
      expect(await rpc(url, 'eth_getTransactionByBlockHashAndIndex', [tx.blockHash, tx.transactionIndex])).toEqual(tx)
      if (type === '0x0') expect(['0xa95', '0xa96']).toContain(tx.v)
      else expect(['0x0', '0x1']).toContain(tx.yParity)
    }
  })

  it('receipts and logs: geth field sets and values', async () => {
    const r = await rpc(url, 'eth_getTransactionReceipt', [hashes.increment])
    expect(keys(r)).toEqual(RECEIPT_KEYS)
    expect(r).toMatchObject({
      status: '0x1',
      type: '0x2',
      from: ADDR0.toLowerCase(),
      to: counter.toLowerCase(),
      contractAddress: null,
      transactionHash: hashes.increment,
    })
    expect(r.logs).toHaveLength(1)
    const log = r.logs[0]
    expect(keys(log)).toEqual(LOG_KEYS)
    expect(log).toMatchObject({
      address: counter.toLowerCase(),
      blockHash: r.blockHash,
      blockNumber: r.blockNumber,
      transactionHash: hashes.increment,
      transactionIndex: r.transactionIndex,
      removed: false,
      data: pad(toHex(1n), { size: 32 }),
    })
    const logs = await rpc(url, 'eth_getLogs', [{ address: counter, fromBlock: '0x0', toBlock: 'latest' }])
    expect(logs).toEqual([log])
    const deploy = await rpc(url, 'eth_getTransactionReceipt', [hashes.deploy])
    expect(keys(deploy)).toEqual(RECEIPT_KEYS)
    expect(deploy.to).toBeNull()
    expect(deploy.contractAddress).toBe(counter.toLowerCase())
    const legacy = await rpc(url, 'eth_getTransactionReceipt', [hashes.legacy])
    expect(legacy.type).toBe('0x0')
    expect(legacy.logs).toEqual([])
    expect(legacy.logsBloom).toBe(`0x${'0'.repeat(512)}`)
  })

  it('eth_getLogs rejects blockHash together with a range (-32602)', async () => {
    const latest = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(
      (await rpcResponse(url, 'eth_getLogs', [{ blockHash: latest.hash, fromBlock: '0x0', toBlock: '0x1' }])).error,
    ).toEqual({
      code: -32602,
      message: 'invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
    })
  })
})

describe('web3 / net / chain id', () => {
  it('web3_clientVersion names the client', async () => {
    const v = await rpc<string>(url, 'web3_clientVersion')
    expect(typeof v).toBe('string')
    expect(v).toMatch(/^[^/\s]+\/v?\d+\.\d+\.\d+/)
  })

  it('web3_sha3 is keccak-256', async () => {
    expect(await rpc(url, 'web3_sha3', ['0x68656c6c6f20776f726c64'])).toBe(
      '0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad',
    )
    expect(await rpc(url, 'web3_sha3', ['0x'])).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    )
  })

  it('net_version "1337", eth_chainId "0x539", net_listening, eth_syncing false', async () => {
    expect(await rpc(url, 'net_version')).toBe('1337')
    expect(await rpc(url, 'eth_chainId')).toBe('0x539')
    expect(await rpc(url, 'net_listening')).toBe(true)
    expect(await rpc(url, 'eth_syncing')).toBe(false)
  })
})
