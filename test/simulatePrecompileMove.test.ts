/**
 * eth_simulateV1's `movePrecompileToAddress` state override (geth internal/ethapi/override
 * StateOverride.Apply) over HTTP on `ibex start --network dev`: ecrecover moved away answers at
 * its new address and is gone from 0x01; geth's refusals (-32000, addresses in EIP-55 case) for
 * moving a plain account, onto an address that is itself overridden — checked in geth's order, the overrides sorted by
 * address whatever order the JSON lists them in.
 */
import { getAddress, type Hex, keccak256, pad, toHex } from 'viem'
import { privateKeyToAccount, sign } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, rpcResponse, startNode } from './helpers/node.js'

const ECRECOVER = '0x0000000000000000000000000000000000000001'
const NEW_HOME = '0xc100000000000000000000000000000000000000'
const OTHER = '0xc200000000000000000000000000000000000000'
const signer = DEV_ACCOUNTS[2]

let node: IbexNode

beforeAll(async () => {
  node = await startNode({ port: 'free' })
}, 60_000)

afterAll(async () => {
  await cleanupNodes()
})

/** ecrecover's input for a signature by `signer` of a fixed hash: hash ‖ v ‖ r ‖ s. */
async function ecrecoverInput(): Promise<Hex> {
  const hash = keccak256(toHex('ibex moves a precompile'))
  const sig = await sign({ hash, privateKey: signer.privateKey })
  const v = pad(toHex(sig.v ?? BigInt(27 + (sig.yParity ?? 0))), { size: 32 })
  return `0x${[hash, v, sig.r, sig.s].map((w) => w.slice(2)).join('')}`
}

function simulate(stateOverrides: Record<string, unknown>, calls: unknown[] = []) {
  return rpcResponse(node.url, 'eth_simulateV1', [{ blockStateCalls: [{ stateOverrides, calls }] }, 'latest'])
}

describe('eth_simulateV1 movePrecompileToAddress', () => {
  it('ecrecover moved to another address answers there, and 0x01 no longer recovers', async () => {
    const input = await ecrecoverInput()
    const res = await simulate({ [ECRECOVER]: { movePrecompileToAddress: NEW_HOME } }, [
      { to: NEW_HOME, input },
      { to: ECRECOVER, input },
    ])
    expect(res.error).toBeUndefined()
    // biome-ignore lint/suspicious/noExplicitAny: simulate JSON
    const [moved, old] = (res.result as any)[0].calls
    expect(moved.status).toBe('0x1')
    expect(moved.returnData).toBe(
      pad(privateKeyToAccount(signer.privateKey).address.toLowerCase() as Hex, { size: 32 }),
    )
    expect(old.status).toBe('0x1')
    expect(old.returnData).toBe('0x')
  })

  it('without the override 0x01 still recovers (the control)', async () => {
    const input = await ecrecoverInput()
    const res = await rpc(node.url, 'eth_simulateV1', [
      { blockStateCalls: [{ calls: [{ to: ECRECOVER, input }] }] },
      'latest',
    ])
    expect(res[0].calls[0].returnData).toBe(
      pad(privateKeyToAccount(signer.privateKey).address.toLowerCase() as Hex, { size: 32 }),
    )
  })

  it('moving an account that is not a precompile → -32000 "account X is not a precompile"', async () => {
    const res = await simulate({ [OTHER]: { movePrecompileToAddress: NEW_HOME } })
    expect(res.error).toEqual({ code: -32000, message: `account ${getAddress(OTHER)} is not a precompile` })
  })

  it('moving onto an overridden address → -32000 "account X is already overridden"', async () => {
    const res = await simulate({
      [ECRECOVER]: { movePrecompileToAddress: NEW_HOME },
      [NEW_HOME]: { balance: '0x1' },
    })
    expect(res.error).toEqual({ code: -32000, message: `account ${getAddress(NEW_HOME)} is already overridden` })
  })

  it('checks the overrides in address order, as geth does, not in the order the JSON lists them', async () => {
    // NEW_HOME (not a precompile) is listed first, but 0x01 sorts first and its move onto
    // NEW_HOME is refused before NEW_HOME's own move is looked at
    const res = await simulate({
      [NEW_HOME]: { movePrecompileToAddress: OTHER },
      [ECRECOVER]: { movePrecompileToAddress: NEW_HOME },
    })
    expect(res.error).toEqual({ code: -32000, message: `account ${getAddress(NEW_HOME)} is already overridden` })
  })
})
