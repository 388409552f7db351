/**
 * An independent computation of a checkpoint root (issue 20): the Merkle root of blocks
 * [start, end] from the block hashes eth_getBlockByNumber answers, and nothing else. It imports
 * nothing from src/ — the rule is written again from VALIDATORS.md ("Root"):
 *
 *   leaves = the hashes of blocks start..end in order, padded with 32 zero bytes to the next power
 *            of two (one block: its hash is the root); node = keccak256(left ‖ right); leaves are
 *            not hashed again, pairs are not sorted
 *
 * Hashes are fetched with plain fetch in JSON-RPC batches (ibex's default max_batch_items) and
 * hashed with viem's keccak256. Used by test/checkpoint/rootHash.test.ts (against bor_getRootHash)
 * and by the checkpoint e2e test (against the root the base-chain contract stores). Alone, under a
 * TypeScript runner: `node --experimental-strip-types test/checkpoint/rootCheck.ts <rpc url> <start>
 * <end>` (Node ≥ 22.6) prints the root, 0x-prefixed.
 */
import { concat, type Hex, keccak256 } from 'viem'

/** Requests per batch: ibex's default `[jsonrpc] max_batch_items` (1,000). */
export const BATCH_ITEMS = 1000
const ZERO_LEAF: Hex = `0x${'00'.repeat(32)}`

interface RpcAnswer {
  id: number
  result?: { number: Hex; hash: Hex } | null
  error?: { code: number; message: string }
}

/** The hashes of blocks start..end as the node reports them (eth_getBlockByNumber, no transactions). */
export async function blockHashesFromRpc(url: string, start: bigint, end: bigint): Promise<Hex[]> {
  if (end < start) throw new Error(`rootCheck: range [${start}, ${end}] ends before it starts`)
  const hashes: Hex[] = []
  for (let from = start; from <= end; from += BigInt(BATCH_ITEMS)) {
    const to = from + BigInt(BATCH_ITEMS) - 1n < end ? from + BigInt(BATCH_ITEMS) - 1n : end
    const body = []
    for (let n = from; n <= to; n++) {
      body.push({
        jsonrpc: '2.0',
        id: Number(n - from),
        method: 'eth_getBlockByNumber',
        params: [`0x${n.toString(16)}`, false],
      })
    }
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const answers = ((await res.json()) as RpcAnswer[]).sort((a, b) => a.id - b.id)
    if (answers.length !== body.length) throw new Error(`rootCheck: ${body.length} requests, ${answers.length} answers`)
    for (const a of answers) {
      const n = from + BigInt(a.id)
      if (a.error !== undefined) throw new Error(`rootCheck: block ${n}: ${a.error.message}`)
      if (a.result === null || a.result === undefined) throw new Error(`rootCheck: block ${n} not found`)
      if (BigInt(a.result.number) !== n) throw new Error(`rootCheck: asked block ${n}, got ${a.result.number}`)
      hashes.push(a.result.hash.toLowerCase() as Hex)
    }
  }
  return hashes
}

/** The root of a list of block hashes, by the rule above. */
export function rootOfHashes(hashes: readonly Hex[]): Hex {
  if (hashes.length === 0) throw new Error('rootCheck: no leaves')
  let level = [...hashes]
  let width = 1
  while (width < level.length) width *= 2
  while (level.length < width) level.push(ZERO_LEAF)
  while (level.length > 1) {
    const up: Hex[] = []
    for (let i = 0; i < level.length; i += 2) up.push(keccak256(concat([level[i] as Hex, level[i + 1] as Hex])))
    level = up
  }
  return level[0] as Hex
}

/** rootFromRpc: the checkpoint root of blocks [start, end] of the node at `url`, 0x-prefixed lower-case hex. */
export async function rootFromRpc(url: string, start: bigint | number, end: bigint | number): Promise<Hex> {
  return rootOfHashes(await blockHashesFromRpc(url, BigInt(start), BigInt(end)))
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const [url, start, end] = process.argv.slice(2)
  console.log(await rootFromRpc(url as string, BigInt(start as string), BigInt(end as string)))
}
