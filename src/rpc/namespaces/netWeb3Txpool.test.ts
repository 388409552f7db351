/** The net, web3 and txpool namespaces over a fake backend. */
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../util/crypto.js'
import { toData } from '../../util/hex.js'
import { netNamespace } from './net.js'
import { callMethod, fakeBackend, poolTx, SENDER, transfer } from './testing.js'
import { txpoolNamespace } from './txpool.js'
import { CLIENT_VERSION, web3Namespace } from './web3.js'

const GWEI = 1_000_000_000n
const CHECKSUMMED = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

describe('net', () => {
  it('answers the chain id as a decimal network id', async () => {
    expect(await callMethod(netNamespace, fakeBackend({ chainId: 1337n }), 'net_version')).toEqual({ result: '1337' })
  })

  it('answers a standalone node as listening with no peers', async () => {
    const b = fakeBackend({ network: undefined })
    expect(await callMethod(netNamespace, b, 'net_listening')).toEqual({ result: true })
    expect(await callMethod(netNamespace, b, 'net_peerCount')).toEqual({ result: '0x0' })
  })

  it("answers the network's listener and peers", async () => {
    const network = { peerCount: () => 12, listening: () => false, syncStatus: () => undefined }
    const b = fakeBackend({ network })
    expect(await callMethod(netNamespace, b, 'net_listening')).toEqual({ result: false })
    expect(await callMethod(netNamespace, b, 'net_peerCount')).toEqual({ result: '0xc' })
  })
})

describe('web3', () => {
  it('answers the client version and keccak256 of the data', async () => {
    const b = fakeBackend({})
    expect(await callMethod(web3Namespace, b, 'web3_clientVersion')).toEqual({ result: CLIENT_VERSION })
    expect(CLIENT_VERSION).toMatch(/^ibex\/v\d+\.\d+\.\d+/)
    expect(await callMethod(web3Namespace, b, 'web3_sha3', ['0x68656c6c6f'])).toEqual({
      result: toData(keccak256(new TextEncoder().encode('hello'))),
    })
    expect((await callMethod(web3Namespace, b, 'web3_sha3', ['hello'])).error?.code).toBe(-32602)
  })
})

describe('txpool', () => {
  const pending = [poolTx(transfer(0n, 3n * GWEI, GWEI)), poolTx(transfer(1n, 3n * GWEI, GWEI))]
  const queued = [poolTx(transfer(5n, 2n * GWEI, GWEI))]
  const asked: string[] = []
  const b = fakeBackend({
    poolStats: () => ({ pending: 2, queued: 1 }),
    poolContent: () => ({ pending: new Map([[SENDER.address, pending]]), queued: new Map([[SENDER.address, queued]]) }),
    poolContentFrom: (address) => {
      asked.push(address)
      return address === SENDER.address ? { pending, queued } : { pending: [], queued: [] }
    },
  })

  it('answers the counts as quantities', async () => {
    expect(await callMethod(txpoolNamespace, b, 'txpool_status')).toEqual({ result: { pending: '0x2', queued: '0x1' } })
  })

  it('groups content by checksummed sender and decimal nonce', async () => {
    const { result } = await callMethod(txpoolNamespace, b, 'txpool_content')
    const content = result as Record<'pending' | 'queued', Record<string, Record<string, Record<string, unknown>>>>
    expect(Object.keys(content.pending)).toEqual([CHECKSUMMED])
    expect(Object.keys(content.pending[CHECKSUMMED] ?? {})).toEqual(['0', '1'])
    expect(content.pending[CHECKSUMMED]?.['1']).toMatchObject({ nonce: '0x1', from: SENDER.address, blockHash: null })
    expect(Object.keys(content.queued[CHECKSUMMED] ?? {})).toEqual(['5'])
  })

  it("summarises each transaction as geth's inspect does", async () => {
    const { result } = await callMethod(txpoolNamespace, b, 'txpool_inspect')
    expect(result).toEqual({
      pending: {
        [CHECKSUMMED]: {
          '0': '0x2222222222222222222222222222222222222222: 1 wei + 21000 gas × 3000000000 wei',
          '1': '0x2222222222222222222222222222222222222222: 1 wei + 21000 gas × 3000000000 wei',
        },
      },
      queued: {
        [CHECKSUMMED]: { '5': '0x2222222222222222222222222222222222222222: 1 wei + 21000 gas × 2000000000 wei' },
      },
    })
  })

  it("answers one sender's content, asked with the lowercase address", async () => {
    const { result } = await callMethod(txpoolNamespace, b, 'txpool_contentFrom', [CHECKSUMMED])
    expect(asked).toEqual([SENDER.address])
    expect(Object.keys((result as { pending: object }).pending)).toEqual(['0', '1'])
    expect(Object.keys((result as { queued: object }).queued)).toEqual(['5'])
  })
})
