/**
 * Crash safety: a burst of ~200 transfers from several dev accounts, `kill -9` in the middle of
 * it, restart on the same datadir. What a client was told must still hold: every transaction
 * whose receipt it saw before the kill is still mined in the same block, the head block is whole
 * (its receipts are there), balances and nonces agree exactly with the receipts, and the node
 * keeps producing blocks.
 */
import type { Hex } from 'viem'
import { keccak256 } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, randomAddress } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, type RpcReceipt, rpc, startNode, waitForReceipt } from './helpers/node.js'
import { currentFees, signTx } from './helpers/tx.js'

const SENDERS = DEV_ACCOUNTS.slice(1, 5)
const TXS_PER_SENDER = 50
const RECIPIENTS_PER_SENDER = 5
/** Kill once this many transactions were accepted and at least one was seen mined. */
const KILL_AFTER_ACCEPTED = 100
/** Pause between two sends of one sender, so the burst spans several blocks. */
const SEND_PAUSE_MS = 10
/** Upper bound on the burst phase; the kill happens by then whatever was reached. */
const BURST_DEADLINE_MS = 30_000
const POLL_MS = 20
/** Receipt look-ups per polling round. */
const POLL_BATCH = 40
const KILL_CHECK_MS = 5

interface BurstTx {
  hash: Hex
  raw: Hex
  from: string
  to: string
  nonce: number
  value: bigint
}

let node: IbexNode
let restarted: IbexNode
const txs: BurstTx[] = []
const accepted = new Set<Hex>()
const seenMined = new Map<Hex, RpcReceipt>()
const startNonce = new Map<string, number>()
let startBlock = 0n
let headAtKill = 0n
let headHashAtKill: string | undefined
const sendErrorsBeforeKill: string[] = []

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeAll(async () => {
  node = await startNode()
  const url = node.url
  // one tx first so the chain is past genesis and fees are settled
  await waitForReceipt(
    url,
    await rpc(url, 'eth_sendRawTransaction', [
      await signTx(url, DEV_ACCOUNTS[9].privateKey, { to: randomAddress(), value: 1n }),
    ]),
  )
  startBlock = BigInt(await rpc(url, 'eth_blockNumber'))
  const fees = await currentFees(url)
  // generous fee cap: the base fee may rise during the burst
  const burstFees = { ...fees, maxFeePerGas: fees.maxFeePerGas * 4n }
  for (const s of SENDERS) {
    const nonce = Number(BigInt(await rpc(url, 'eth_getTransactionCount', [s.address, 'pending'])))
    startNonce.set(s.address.toLowerCase(), nonce)
    const recipients = Array.from({ length: RECIPIENTS_PER_SENDER }, () => randomAddress())
    for (let i = 0; i < TXS_PER_SENDER; i++) {
      const to = recipients[i % RECIPIENTS_PER_SENDER]
      const value = 10n ** 12n + BigInt(i)
      const raw = await signTx(url, s.privateKey, { to, value, nonce: nonce + i }, burstFees)
      txs.push({ hash: keccak256(raw), raw, from: s.address.toLowerCase(), to, nonce: nonce + i, value })
    }
  }

  // the burst: senders in parallel, each in nonce order; a poller records receipts as the client sees them
  let killed = false
  const t0 = performance.now()
  const senders = SENDERS.map(async (s) => {
    for (const tx of txs.filter((t) => t.from === s.address.toLowerCase())) {
      if (killed) return
      try {
        const h = await rpc<Hex>(url, 'eth_sendRawTransaction', [tx.raw])
        if (h === tx.hash) accepted.add(h)
      } catch (e) {
        if (!killed) sendErrorsBeforeKill.push(String(e))
        return
      }
      await sleep(SEND_PAUSE_MS)
    }
  })
  // receipts as the client sees them: the oldest unmined accepted hashes, a bounded number per round
  const poller = (async () => {
    while (!killed) {
      const pending = [...accepted].filter((h) => !seenMined.has(h)).slice(0, POLL_BATCH)
      await Promise.all(
        pending.map(async (h) => {
          try {
            const r = await rpc<RpcReceipt | null>(url, 'eth_getTransactionReceipt', [h])
            if (r && !killed) seenMined.set(h, r)
          } catch {
            // node gone
          }
        }),
      )
      await sleep(POLL_MS)
    }
  })()
  // the kill: as soon as the burst is well under way and something was seen mined
  while (!killed) {
    const everyoneDone = accepted.size + sendErrorsBeforeKill.length >= txs.length
    if (
      (seenMined.size > 0 && (accepted.size >= KILL_AFTER_ACCEPTED || everyoneDone)) ||
      performance.now() - t0 > BURST_DEADLINE_MS
    ) {
      try {
        const head = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
        headAtKill = BigInt(head.number)
        headHashAtKill = head.hash
      } catch {
        // keep 0
      }
      killed = true
      await node.kill9()
    } else {
      await sleep(KILL_CHECK_MS)
    }
  }
  const acceptedAtKill = accepted.size
  await poller
  await Promise.allSettled(senders)
  console.log(
    `crash: ${txs.length} signed, ${acceptedAtKill} accepted, ${seenMined.size} seen mined, head ${headAtKill} at kill -9 (after ${Math.round(performance.now() - t0)} ms)`,
  )
  restarted = await startNode({ datadir: node.datadir })
}, 120_000)

afterAll(cleanupNodes)

describe('kill -9 mid-burst, restart', () => {
  it('the burst was under way when the node was killed', () => {
    expect(sendErrorsBeforeKill, 'sends rejected before the kill').toEqual([])
    expect(seenMined.size).toBeGreaterThan(0)
    expect(accepted.size).toBeGreaterThanOrEqual(Math.min(KILL_AFTER_ACCEPTED, txs.length))
  })

  it('every receipt the client saw before the kill is still there, in the same block', async () => {
    const url = restarted.url
    const missing: string[] = []
    for (const [hash, before] of seenMined) {
      const after = await rpc<RpcReceipt | null>(url, 'eth_getTransactionReceipt', [hash])
      if (!after) {
        missing.push(`${hash} (block ${BigInt(before.blockNumber)})`)
        continue
      }
      expect(after, hash).toEqual(before)
      const block = await rpc(url, 'eth_getBlockByNumber', [before.blockNumber, false])
      expect(block?.hash, `block ${before.blockNumber}`).toBe(before.blockHash)
    }
    expect(missing, `${missing.length} of ${seenMined.size} receipts lost`).toEqual([])
    expect(BigInt(await rpc(url, 'eth_blockNumber'))).toBeGreaterThanOrEqual(
      [...seenMined.values()].reduce((m, r) => (BigInt(r.blockNumber) > m ? BigInt(r.blockNumber) : m), 0n),
    )
  })

  it('the head the node served just before the kill is still there with the same hash', async () => {
    expect(headHashAtKill).toBeDefined()
    const b = await rpc(restarted.url, 'eth_getBlockByNumber', [`0x${headAtKill.toString(16)}`, false])
    expect(b?.hash, `block ${headAtKill}`).toBe(headHashAtKill)
  })

  it('the head block is present with all its receipts', async () => {
    const url = restarted.url
    const head = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
    expect(head).not.toBeNull()
    for (const h of head.transactions as Hex[]) {
      const r = await rpc<RpcReceipt | null>(url, 'eth_getTransactionReceipt', [h])
      expect(r, `receipt of ${h} in head block ${BigInt(head.number)}`).not.toBeNull()
      expect(r?.blockHash).toBe(head.hash)
    }
    if (BigInt(head.number) > 0n) {
      const parent = await rpc(url, 'eth_getBlockByNumber', [`0x${(BigInt(head.number) - 1n).toString(16)}`, false])
      expect(head.parentHash).toBe(parent.hash)
    }
  })

  it('balances and nonces agree exactly with the receipts (sum check)', async () => {
    const url = restarted.url
    const h = BigInt(await rpc(url, 'eth_blockNumber'))
    const hHex = `0x${h.toString(16)}`
    const mined: (BurstTx & { receipt: RpcReceipt })[] = []
    for (const tx of txs) {
      const r = await rpc<RpcReceipt | null>(url, 'eth_getTransactionReceipt', [tx.hash])
      if (r && BigInt(r.blockNumber) <= h) mined.push({ ...tx, receipt: r })
    }
    expect(mined.length).toBeGreaterThanOrEqual(seenMined.size)
    const received = new Map<string, bigint>()
    for (const tx of mined) {
      expect(tx.receipt.status, tx.hash).toBe('0x1')
      received.set(tx.to, (received.get(tx.to) ?? 0n) + tx.value)
    }
    for (const to of new Set(txs.map((t) => t.to))) {
      expect(BigInt(await rpc(url, 'eth_getBalance', [to, hHex])), `recipient ${to}`).toBe(received.get(to) ?? 0n)
    }
    const start = `0x${startBlock.toString(16)}`
    for (const s of SENDERS) {
      const from = s.address.toLowerCase()
      const own = mined.filter((t) => t.from === from)
      const spent = own.reduce(
        (sum, t) => sum + t.value + BigInt(t.receipt.gasUsed) * BigInt(t.receipt.effectiveGasPrice),
        0n,
      )
      const balance0 = BigInt(await rpc(url, 'eth_getBalance', [s.address, start]))
      const balanceH = BigInt(await rpc(url, 'eth_getBalance', [s.address, hHex]))
      expect(balance0 - balanceH, `sender ${from}`).toBe(spent)
      const n0 = startNonce.get(from) ?? 0
      // mined nonces are contiguous from the start nonce
      expect(own.map((t) => t.nonce).sort((a, b) => a - b)).toEqual(own.map((_, i) => n0 + i))
      expect(Number(BigInt(await rpc(url, 'eth_getTransactionCount', [s.address, hHex])))).toBe(n0 + own.length)
    }
  })

  it('keeps producing blocks after the restart', async () => {
    const url = restarted.url
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    const hash = await rpc<Hex>(url, 'eth_sendRawTransaction', [
      await signTx(url, DEV_ACCOUNTS[9].privateKey, { to: randomAddress(), value: 1n }),
    ])
    const r = await waitForReceipt(url, hash)
    expect(r.status).toBe('0x1')
    expect(BigInt(r.blockNumber)).toBeGreaterThan(head)
    expect(BigInt(r.blockNumber)).toBeGreaterThan(headAtKill)
  })
})
