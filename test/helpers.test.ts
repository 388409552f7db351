/**
 * Checks the e2e helpers themselves, without ibex: the solc compile, the header/IBFT codec of
 * test/helpers/header.ts against a block sealed here, and the process helper against a fake node
 * (banner URL, /proc fallback, early exit with stderr, SIGTERM, SIGKILL after a stop timeout).
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compileContract, REPO_ROOT } from './helpers/compile.js'
import {
  bytesToHex,
  committedSealDigest,
  concatBytes,
  decodeIbftExtra,
  encodeHeader,
  hashingExtraData,
  hexToBytes,
  keccak256,
  proposerSealDigest,
  RLP,
  recoverSigner,
  sealFreeHash,
} from './helpers/header.js'
import { cleanupNodes, parseBannerUrl, parseValidatorAddress, startNode } from './helpers/node.js'
import { secp256k1 } from 'ethereum-cryptography/secp256k1.js'

const FAKE = join(REPO_ROOT, 'test', 'fixtures', 'fake-ibex.mjs')

afterAll(cleanupNodes)

describe('compile', () => {
  it('compiles Counter for Prague with abi and bytecode', () => {
    const c = compileContract('Counter')
    expect(c.bytecode).toMatch(/^0x[0-9a-f]{200,}$/)
    expect(c.deployedBytecode).toMatch(/^0x[0-9a-f]{100,}$/)
    const names = c.abi.map((i) => `${i.type}:${i.name ?? ''}`)
    for (const n of [
      'function:increment',
      'function:incrementBy',
      'function:get',
      'function:restricted',
      'function:divide',
      'function:deposit',
      'event:Incremented',
      'error:Unauthorized',
    ]) {
      expect(names).toContain(n)
    }
    // cached: same object
    expect(compileContract('Counter')).toBe(c)
  })
})

describe('header helpers', () => {
  const key = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
  const addr = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
  const sign = (digest: Uint8Array) => {
    const s = secp256k1.sign(digest, key)
    return concatBytes(s.toCompactRawBytes(), Uint8Array.of(s.recovery))
  }
  const z32 = `0x${'00'.repeat(32)}`
  const block: Record<string, unknown> = {
    parentHash: z32,
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    miner: addr,
    stateRoot: z32,
    transactionsRoot: z32,
    receiptsRoot: z32,
    logsBloom: `0x${'00'.repeat(256)}`,
    difficulty: '0x1',
    number: '0x5',
    gasLimit: '0x1c9c380',
    gasUsed: '0x0',
    timestamp: '0x6553f100',
    mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
    nonce: '0x0000000000000000',
    baseFeePerGas: '0x7',
    withdrawalsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    blobGasUsed: '0x0',
    excessBlobGas: '0x0',
    parentBeaconBlockRoot: z32,
    requestsHash: '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  }

  it('round-trips a block sealed the DESIGN way', () => {
    const vanity = new Uint8Array(32)
    const validators = [hexToBytes(addr)]
    const parentSeals = [new Uint8Array(65).fill(1)]
    const unsealed = concatBytes(vanity, RLP.encode([validators, new Uint8Array(), [], parentSeals, new Uint8Array()]))
    const hash = keccak256(encodeHeader(block, unsealed))
    const round = 3n
    const roundBe = hexToBytes('0x0000000000000003')
    const sealed = concatBytes(
      vanity,
      RLP.encode([
        validators,
        sign(proposerSealDigest(hash)),
        [sign(committedSealDigest(hash, round))],
        parentSeals,
        roundBe,
      ]),
    )
    const sealedBlock = { ...block, extraData: bytesToHex(sealed) }
    const extra = decodeIbftExtra(sealedBlock.extraData)
    expect(extra.round).toBe(3n)
    expect(extra.validators.map(bytesToHex)).toEqual([addr])
    expect(bytesToHex(hashingExtraData(extra))).toBe(bytesToHex(unsealed))
    expect(sealFreeHash(sealedBlock)).toBe(bytesToHex(hash))
    expect(recoverSigner(proposerSealDigest(hash), extra.proposerSeal)).toBe(addr)
    expect(recoverSigner(committedSealDigest(hash, extra.round), extra.committedSeals[0])).toBe(addr)
    // v as 27/28 is accepted too
    const seal27 = Uint8Array.from(extra.proposerSeal)
    seal27[64] += 27
    expect(recoverSigner(proposerSealDigest(hash), seal27)).toBe(addr)
  })
})

describe('process helper (fake node)', () => {
  it('parses banner URLs and validator addresses', () => {
    expect(parseBannerUrl('listening on http://127.0.0.1:45123 (ws off)')).toBe('http://127.0.0.1:45123')
    expect(parseBannerUrl('{"msg":"rpc","url":"http://0.0.0.0:8545"}')).toBe('http://127.0.0.1:8545')
    expect(parseBannerUrl('http://127.0.0.1:0')).toBeUndefined()
    expect(parseValidatorAddress('validator: 0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n')).toBe(
      '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
    )
  })

  it('starts on --http.port 0, reads the banner, stops with SIGTERM (exit 0)', async () => {
    const node = await startNode({ bin: FAKE })
    expect(node.urlSource).toBe('banner')
    expect(node.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(node.validatorAddress()).toBe('0x00000000000000000000000000000000000000aa')
    const s = await node.stop()
    expect(s).toMatchObject({ code: 0, timedOut: false })
    expect(node.isRunning()).toBe(false)
  })

  it('finds the port in /proc when no banner is printed', async () => {
    process.env.FAKE_IBEX_NO_BANNER = '1'
    try {
      const node = await startNode({ bin: FAKE })
      expect(node.urlSource).toBe('proc')
      await node.kill9()
    } finally {
      delete process.env.FAKE_IBEX_NO_BANNER
    }
  })

  it('uses a pre-picked free port in free mode', async () => {
    const node = await startNode({ bin: FAKE, port: 'free' })
    expect(node.urlSource).toBe('flag')
    expect(node.command).toContain('--http.port')
    const s = await node.kill9()
    expect(s.signal).toBe('SIGKILL')
  })

  it('reports early exit with the stderr', async () => {
    process.env.FAKE_IBEX_FAIL = '1'
    try {
      await expect(startNode({ bin: FAKE })).rejects.toThrow(/exited before answering eth_chainId[\s\S]*fake failure/)
    } finally {
      delete process.env.FAKE_IBEX_FAIL
    }
  })

  it('SIGKILLs a node that ignores SIGTERM after the stop timeout', async () => {
    process.env.FAKE_IBEX_IGNORE_TERM = '1'
    try {
      const node = await startNode({ bin: FAKE })
      const s = await node.stop('SIGTERM', 500)
      expect(s.timedOut).toBe(true)
      expect(s.signal).toBe('SIGKILL')
    } finally {
      delete process.env.FAKE_IBEX_IGNORE_TERM
    }
  })
})
