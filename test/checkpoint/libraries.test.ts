/**
 * The checkpoint contracts' own libraries through a harness (test/checkpoint/contracts/
 * ProofHarness.sol, compiled here with the build's compiler settings) on anvil: the Merkle-Patricia
 * verifier on tries with inline nodes (proofs as @ethereumjs/mpt lists them and as geth does), the
 * RLP reader's refusal of every non-canonical or truncated form, and the checkpoint tree against
 * the one computed in the test for every leaf of trees of 1 to 9 blocks.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { createMerkleProof, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { hexlify, keccak256 } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BoundContract, Json } from '../../scripts/dao/client.js'
import { REPO_ROOT } from '../helpers/compile.js'
import { type BaseChain, merkleProof, merkleRoot, startBaseChain } from './helpers.js'

const HARNESS = 'test/checkpoint/contracts/ProofHarness.sol'
const LIBRARIES = ['BlockMerkleProof', 'MerklePatriciaProof', 'RlpReader'].map(
  (n) => `contracts/checkpoint/lib/${n}.sol`,
)
/** The keys of the inline-node trie: short keys and one-byte values make nodes under 32 bytes. */
const INLINE_KEYS = ['01', '0102', '0103', '0201', '020202']

let base: BaseChain
let harness: BoundContract

function compileHarness(): { abi: Json[]; bytecode: string } {
  const sources: Record<string, { content: string }> = {}
  for (const unit of [HARNESS, ...LIBRARIES]) sources[unit] = { content: readFileSync(join(REPO_ROOT, unit), 'utf8') }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'))
  const c = out.contracts[HARNESS].ProofHarness
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
}

async function refusal(fn: string, args: unknown[]): Promise<string> {
  const r = await harness.revertOf(base.deployer, fn, args)
  if (r === undefined) throw new Error(`${fn} accepted`)
  return `${r.name}(${r.args.join(',')})`
}

beforeAll(async () => {
  base = await startBaseChain()
  const { abi, bytecode } = compileHarness()
  const { address } = await base.chain.deployRaw(base.deployer, 'ProofHarness', bytecode)
  harness = base.chain.contract('ProofHarness', address, abi)
}, 60_000)

afterAll(async () => {
  await base?.stop()
})

describe('MerklePatriciaProof', () => {
  let trie: MerklePatriciaTrie
  const proofs = new Map<string, Uint8Array[]>()

  beforeAll(async () => {
    trie = new MerklePatriciaTrie()
    for (const k of INLINE_KEYS) await trie.put(Buffer.from(k, 'hex'), Uint8Array.of(0x61))
    for (const k of INLINE_KEYS) proofs.set(k, await createMerkleProof(trie, Buffer.from(k, 'hex')))
  })

  it('reads values behind inline nodes, with the inline nodes listed (ethereumjs) or not (geth)', async () => {
    const root = hexlify(trie.root())
    let inlineListed = 0
    for (const k of INLINE_KEYS) {
      const proof = proofs.get(k) as Uint8Array[]
      const hashedOnly = proof.filter((node, i) => i === 0 || node.length >= 32)
      inlineListed += proof.length - hashedOnly.length
      for (const nodes of [proof, hashedOnly]) {
        expect(await harness.read('mptGet', [root, `0x${k}`, RLP.encode(nodes)]), k).toBe('0x61')
        // nodes wrapped as byte strings, or in place
        expect(await harness.read('mptGet', [root, `0x${k}`, RLP.encode(nodes.map((n) => RLP.decode(n)))]), k).toBe(
          '0x61',
        )
      }
    }
    expect(inlineListed).toBeGreaterThan(0)
  })

  it('refuses an absent key, a wrong root, a foreign node and leftovers', async () => {
    const root = hexlify(trie.root())
    const proof = proofs.get('0103') as Uint8Array[]
    expect(await refusal('mptGet', [root, '0x0104', RLP.encode(proof)])).toBe('MptKeyNotFound()')
    expect(await refusal('mptGet', [root, '0x010304', RLP.encode(proof)])).toBe('MptKeyNotFound()')
    expect(await refusal('mptGet', [keccak256('0x01'), '0x0103', RLP.encode(proof)])).toBe('MptBadNodeHash(0)')
    const other = proofs.get('0201') as Uint8Array[]
    expect(await refusal('mptGet', [root, '0x0103', RLP.encode([proof[0], proof[1], other[2]])])).toBe(
      'MptBadNodeHash(2)',
    )
    expect(await refusal('mptGet', [root, '0x0103', RLP.encode([...proof, proof[0]])])).toBe('MptProofTooLong()')
    expect(await refusal('mptGet', [root, '0x0103', RLP.encode(proof.slice(0, 2))])).toBe('MptProofTooShort()')
    expect(await refusal('mptGet', [root, '0x0103', RLP.encode([])])).toBe('MptEmptyProof()')
    expect(await refusal('mptGet', [root, `0x${'01'.repeat(33)}`, RLP.encode(proof)])).toBe('MptKeyTooLong(33)')
  })
})

describe('RlpReader', () => {
  it('reads canonical items', async () => {
    expect(await harness.read('stringOf', ['0x05'])).toBe('0x05')
    expect(await harness.read('stringOf', ['0x8180'])).toBe('0x80')
    expect(await harness.read('stringOf', ['0x80'])).toBe('0x')
    const long = `0x${'ab'.repeat(56)}`
    expect(await harness.read('stringOf', [hexlify(RLP.encode(long))])).toBe(long)
    expect(await harness.read('uintOf', ['0x80'])).toBe(0n)
    expect(await harness.read('uintOf', ['0x820100'])).toBe(256n)
    expect(await harness.read('uintOf', [hexlify(RLP.encode(2n ** 256n - 1n))])).toBe(2n ** 256n - 1n)
    expect(await harness.read('listLength', ['0xc0'])).toBe(0n)
    expect(await harness.read('listLength', [hexlify(RLP.encode(Array.from({ length: 60 }, (_, i) => i)))])).toBe(60n)
  })

  it('refuses non-canonical, truncated and mistyped items', async () => {
    expect(await refusal('stringOf', ['0x8105'])).toBe('RlpNotCanonical()') // a byte below 0x80 wrapped
    expect(await refusal('stringOf', [`0xb801${'61'}`])).toBe('RlpNotCanonical()') // long form for 1 byte
    expect(await refusal('stringOf', [`0xb90038${'61'.repeat(56)}`])).toBe('RlpNotCanonical()') // length with a leading zero
    expect(await refusal('listLength', [`0xf801${'05'}`])).toBe('RlpNotCanonical()')
    expect(await refusal('stringOf', ['0x83aabb'])).toBe('RlpTruncated()')
    expect(await refusal('stringOf', ['0x'])).toBe('RlpTruncated()')
    expect(await refusal('stringOf', ['0xb9'])).toBe('RlpTruncated()')
    expect(await refusal('listLength', ['0xc3010203ff'])).toBe('RlpTrailingBytes()')
    expect(await refusal('listLength', ['0xc30102'])).toBe('RlpTruncated()')
    expect(await refusal('uintOf', ['0x820001'])).toBe('RlpBadInteger()') // leading zero
    expect(await refusal('uintOf', [`0xa1${'01'.repeat(33)}`])).toBe('RlpBadInteger()') // 33 bytes
    expect(await refusal('uintOf', ['0xc0'])).toBe('RlpExpectedString()')
    expect(await refusal('listLength', ['0x80'])).toBe('RlpExpectedList()')
  })
})

describe('BlockMerkleProof', () => {
  it('has the padded tree depth and opens every leaf of trees of 1 to 9 blocks', async () => {
    const depths: [number, number][] = [
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 2],
      [5, 3],
      [1024, 10],
      [1025, 11],
      [65_536, 16],
    ]
    for (const [n, d] of depths) expect(await harness.read('depthOf', [n]), `${n} leaves`).toBe(BigInt(d))
    for (let n = 1; n <= 9; n++) {
      const leaves = Array.from({ length: n }, (_, i) => keccak256(`0x${(n * 16 + i).toString(16).padStart(4, '0')}`))
      const root = merkleRoot(leaves)
      for (let i = 0; i < n; i++) {
        expect(await harness.read('rootOf', [leaves[i], i, merkleProof(leaves, i)]), `${n}/${i}`).toBe(root)
      }
    }
  })
})
