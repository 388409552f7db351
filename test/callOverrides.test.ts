/**
 * The call methods' inputs as geth v1.17.5 takes them, over HTTP on `ibex start --network dev`
 * (found by test/callFuzz.test.ts; each failed before the fix):
 *  - a message nonce of 2^64-1 is ignored by every call method (it crashed debug_traceCall's worker
 *    and eth_createAccessList's handler);
 *  - eth_call and eth_estimateGas take state overrides (3rd) and block overrides (4th),
 *    eth_createAccessList state overrides (3rd), movePrecompileToAddress included ("too many
 *    arguments" before); debug_traceCall applies `blockOverrides` (refused before);
 *  - `chainId`, the blob fields and `authorizationList` reach the EVM: a foreign chain id is refused
 *    in geth's words, BLOBHASH reads the message's hashes, an authorization delegates the authority.
 */
import { getAddress, type Hex, keccak256, pad, toHex } from 'viem'
import { privateKeyToAccount, sign } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, rpcResponse, startNode } from './helpers/node.js'

const FROM = DEV_ACCOUNTS[0].address
/** Has never sent a transaction on a fresh dev chain: its nonce is 0. */
const AUTHORITY = DEV_ACCOUNTS[7]
const ECRECOVER = '0x0000000000000000000000000000000000000001'
/** Addresses the overrides give code to (nothing lives there on a fresh chain). */
const CODE_AT = '0xc0de000000000000000000000000000000000001'
const NEW_HOME = '0xc100000000000000000000000000000000000000'
const TOUCHED = '0x7007000000000000000000000000000000000007'
const MAX_U64 = '0xffffffffffffffff'
/** The node's RPC gas cap (config default). */
const GAS_CAP = 50_000_000

/** Returns 42 as one word. */
const RETURN_42 = '0x602a60005260206000f3'
/** Returns NUMBER and TIMESTAMP as two words. */
const RETURN_NUMBER_TIME = '0x436000524260205260406000f3'
/** Returns BLOBHASH(0). */
const RETURN_BLOBHASH_0 = '0x60004960005260206000f3'
/** EXTCODESIZE(TOUCHED), then stops: touches TOUCHED. */
const TOUCH = `0x73${TOUCHED.slice(2)}3b5000`

const word = (n: bigint | number) => pad(toHex(n), { size: 32 })

let node: IbexNode

beforeAll(async () => {
  node = await startNode({ args: ['--http.api', 'eth,net,web3,debug'] })
}, 60_000)
afterAll(cleanupNodes)

function code(at: string, bytecode: string): Record<string, unknown> {
  return { [at]: { code: bytecode } }
}

describe('a message nonce of 2^64-1', () => {
  it('is ignored by every call method: an answer, no crashed worker, nothing logged as an error', async () => {
    const msg = { from: FROM, to: DEV_ACCOUNTS[1].address, nonce: MAX_U64, gas: '0x5208' }
    expect(await rpc(node.url, 'eth_call', [msg, 'latest'])).toBe('0x')
    expect(await rpc(node.url, 'eth_estimateGas', [msg, 'latest'])).toBe('0x5208')
    expect(await rpc(node.url, 'eth_createAccessList', [msg, 'latest'])).toMatchObject({ accessList: [] })
    expect(await rpc(node.url, 'debug_traceCall', [msg, 'latest', {}])).toMatchObject({ failed: false })
    expect(node.stderr()).not.toMatch(/"level":"(error|fatal)"/)
  })
})

describe('state overrides', () => {
  it('eth_call and eth_estimateGas run against the overridden state (3rd parameter)', async () => {
    expect(await rpc(node.url, 'eth_call', [{ to: CODE_AT }, 'latest', code(CODE_AT, RETURN_42)])).toBe(word(42))
    expect(await rpc(node.url, 'eth_call', [{ to: CODE_AT }, 'latest'])).toBe('0x')
    // an empty sender paying a fee: refused without the balance the override gives it
    const poor = { from: NEW_HOME, to: CODE_AT, maxFeePerGas: '0x77359400' }
    expect((await rpcResponse(node.url, 'eth_estimateGas', [poor, 'latest'])).error).toEqual({
      code: -32000,
      message: 'insufficient funds for transfer',
    })
    const rich = { ...code(CODE_AT, RETURN_42), [NEW_HOME]: { balance: '0xde0b6b3a7640000' } }
    expect(BigInt(await rpc(node.url, 'eth_estimateGas', [poor, 'latest', rich]))).toBeGreaterThan(21_000n)
  })

  it('movePrecompileToAddress: ecrecover answers at its new address and 0x01 no longer recovers', async () => {
    const signer = DEV_ACCOUNTS[2]
    const hash = keccak256(toHex('ibex moves a precompile in eth_call'))
    const sig = await sign({ hash, privateKey: signer.privateKey })
    const v = pad(toHex(27 + (sig.yParity ?? 0)), { size: 32 })
    const input = `0x${[hash, v, sig.r, sig.s].map((w) => w.slice(2)).join('')}` as Hex
    const moved = { [ECRECOVER]: { movePrecompileToAddress: NEW_HOME } }
    const recovered = pad(signer.address.toLowerCase() as Hex, { size: 32 })
    expect(await rpc(node.url, 'eth_call', [{ to: NEW_HOME, input }, 'latest', moved])).toBe(recovered)
    expect(await rpc(node.url, 'eth_call', [{ to: ECRECOVER, input }, 'latest', moved])).toBe('0x')
    expect(await rpc(node.url, 'eth_call', [{ to: ECRECOVER, input }, 'latest'])).toBe(recovered)
    const refused = await rpcResponse(node.url, 'eth_call', [
      { to: NEW_HOME },
      'latest',
      { [TOUCHED]: { movePrecompileToAddress: NEW_HOME } },
    ])
    expect(refused.error).toEqual({ code: -32000, message: `account ${getAddress(TOUCHED)} is not a precompile` })
  })

  it('eth_createAccessList lists what the overridden code touches; a precompile move is refused as geth refuses it', async () => {
    const res = await rpc(node.url, 'eth_createAccessList', [
      { from: FROM, to: CODE_AT },
      'latest',
      code(CODE_AT, TOUCH),
    ])
    expect(res.accessList).toEqual([{ address: TOUCHED, storageKeys: [] }])
    // geth applies eth_createAccessList's overrides without the precompile table
    const moved = await rpcResponse(node.url, 'eth_createAccessList', [
      { from: FROM, to: CODE_AT },
      'latest',
      { [ECRECOVER]: { movePrecompileToAddress: NEW_HOME } },
    ])
    expect(moved.error).toEqual({ code: -32000, message: `account ${getAddress(ECRECOVER)} is not a precompile` })
  })
})

describe('block overrides', () => {
  const overrides = { number: '0x123456', time: '0x654321' }

  it('eth_call runs under the overridden header (4th parameter); beaconRoot is refused in geth words', async () => {
    const got = await rpc(node.url, 'eth_call', [
      { to: CODE_AT },
      'latest',
      code(CODE_AT, RETURN_NUMBER_TIME),
      overrides,
    ])
    expect(got).toBe(`${word(0x123456)}${word(0x654321).slice(2)}`)
    const refused = await rpcResponse(node.url, 'eth_call', [{ to: CODE_AT }, 'latest', null, { beaconRoot: word(1) }])
    expect(refused.error).toEqual({
      code: -32000,
      message: 'block override "beaconRoot" is not supported for this RPC method',
    })
  })

  it('debug_traceCall applies blockOverrides and stateOverrides', async () => {
    const config = { stateOverrides: code(CODE_AT, RETURN_NUMBER_TIME), blockOverrides: overrides }
    const trace = await rpc(node.url, 'debug_traceCall', [{ to: CODE_AT }, 'latest', config])
    expect(trace.returnValue.replace(/^0x/, '')).toBe(`${word(0x123456)}${word(0x654321).slice(2)}`.slice(2))
  })
})

describe('fields that reach the EVM', () => {
  it("a chain id other than the node's is refused by every call method, bare", async () => {
    const msg = { from: FROM, to: CODE_AT, chainId: '0x1' }
    const message = `chainId does not match node's (have=1, want=${DEV_CHAIN_ID})`
    for (const [method, params] of [
      ['eth_call', [msg, 'latest']],
      ['eth_estimateGas', [msg, 'latest']],
      ['eth_createAccessList', [msg, 'latest']],
      ['debug_traceCall', [msg, 'latest', {}]],
    ] as const) {
      expect((await rpcResponse(node.url, method, [...params])).error, method).toEqual({ code: -32000, message })
    }
  })

  it("BLOBHASH reads the message's blob hashes; geth's blob rules, wrapped as eth_call wraps them", async () => {
    const blob = `0x01${'ab'.repeat(31)}`
    const msg = { to: CODE_AT, blobVersionedHashes: [blob] }
    expect(await rpc(node.url, 'eth_call', [msg, 'latest', code(CODE_AT, RETURN_BLOBHASH_0)])).toBe(blob)
    const missing = await rpcResponse(node.url, 'eth_call', [{ to: CODE_AT, blobVersionedHashes: [] }, 'latest'])
    expect(missing.error).toEqual({
      code: -32000,
      message: `err: blob transaction missing blob hashes (supplied gas ${GAS_CAP})`,
    })
  })

  it('an authorization delegates its authority for the call, and costs its intrinsic gas', async () => {
    const authority = privateKeyToAccount(AUTHORITY.privateKey)
    const auth = await authority.signAuthorization({ address: CODE_AT, chainId: DEV_CHAIN_ID, nonce: 0 })
    const authorizationList = [
      {
        chainId: toHex(auth.chainId),
        address: auth.address,
        nonce: toHex(auth.nonce),
        yParity: toHex(auth.yParity ?? 0),
        r: auth.r,
        s: auth.s,
      },
    ]
    const state = code(CODE_AT, RETURN_42)
    const msg = { from: FROM, to: AUTHORITY.address }
    expect(await rpc(node.url, 'eth_call', [msg, 'latest', state])).toBe('0x')
    expect(await rpc(node.url, 'eth_call', [{ ...msg, authorizationList }, 'latest', state])).toBe(word(42))
    const gas = BigInt(await rpc(node.url, 'eth_estimateGas', [{ ...msg, authorizationList }, 'latest', state]))
    expect(gas).toBeGreaterThan(21_000n + 12_500n)
    const empty = await rpcResponse(node.url, 'eth_call', [{ ...msg, authorizationList: [] }, 'latest'])
    expect(empty.error).toEqual({
      code: -32000,
      message: `err: EIP-7702 transaction with empty auth list (sender ${getAddress(FROM)}) (supplied gas ${GAS_CAP})`,
    })
  })
})
