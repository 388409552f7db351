import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createTxFromRLP } from '@ethereumjs/tx'
import { verifyMessage } from 'ethers'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { devAccounts } from '../../../config/accounts.js'
import { hexToBytes, toData } from '../../../util/hex.js'
import type { Backend } from '../../backend.js'
import type { CallRequest } from '../../../exec/pool/index.js'
import { ethNamespace } from '../eth/index.js'
import { personalNamespace } from '../personal.js'
import { callMethod, chainOf, fakeBackend, testBlock } from '../testing.js'
import { UnlockedAccounts } from './accountsKeys.js'

const CHAIN_ID = 1337n
const COMMON = createCustomCommon({ chainId: Number(CHAIN_ID) }, Mainnet, { hardfork: Hardfork.Prague })
const [DEV0, DEV1] = devAccounts(2) as [
  { address: string; privateKey: string },
  { address: string; privateKey: string },
]
const FROM = DEV0.address.toLowerCase()
const TO = `0x${'22'.repeat(20)}`
const BASE_FEE = 7n
const GWEI = 1_000_000_000n
/** What eth_maxPriorityFeePerGas suggests over blocks without transactions (fee.ts DEFAULT_TIP_WEI). */
const DEFAULT_TIP = GWEI
const ESTIMATE = 21_000n + 123n
const STATE_NONCE = 4n

interface Node {
  backend: Backend
  submitted: Uint8Array[]
  estimates: CallRequest[]
}

/** A fake node: one block at base fee 7 wei, dev accounts 0 and 1 unlocked, a pool that takes everything. */
function node(accounts = new UnlockedAccounts([DEV0, DEV1])): Node {
  const submitted: Uint8Array[] = []
  const estimates: CallRequest[] = []
  const backend = fakeBackend({
    ...chainOf([testBlock(0n, [], BASE_FEE)]),
    chainId: CHAIN_ID,
    priceLimit: 0n,
    accounts,
    account: async () => ({ nonce: STATE_NONCE, balance: 10n ** 20n }),
    // the pool's run of the sender continues from the state nonce
    pendingNonce: (_address, stateNonce) => stateNonce + BigInt(submitted.length),
    estimateGas: async (_block, request) => {
      estimates.push(request)
      await new Promise((r) => setTimeout(r, 5))
      return ESTIMATE
    },
    submitTransaction: async (raw) => {
      submitted.push(raw)
      return createTxFromRLP(raw, { common: COMMON }).hash()
    },
  })
  return { backend, submitted, estimates }
}

async function send(n: Node, tx: Record<string, unknown>) {
  return callMethod(ethNamespace, n.backend, 'eth_sendTransaction', [{ from: DEV0.address, to: TO, ...tx }])
}

function decoded(raw: Uint8Array | undefined) {
  if (raw === undefined) throw new Error('nothing submitted')
  return createTxFromRLP(raw, { common: COMMON })
}

describe('eth_sendTransaction for an unlocked account', () => {
  it("fills an EIP-1559 transfer as geth does: pool nonce, estimate, suggested tip, 2 base fees + tip, chain id; signs with the account's key", async () => {
    const n = node()
    const answer = await send(n, { value: '0x10' })
    const tx = decoded(n.submitted[0])
    expect(answer).toEqual({ result: toData(tx.hash()) })
    expect(tx.type).toBe(2)
    expect(tx.getSenderAddress().toString()).toBe(FROM)
    expect({
      nonce: tx.nonce,
      gas: tx.gasLimit,
      value: tx.value,
      chainId: tx.common.chainId(),
      tip: 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : undefined,
      cap: 'maxFeePerGas' in tx ? tx.maxFeePerGas : undefined,
    }).toEqual({
      nonce: STATE_NONCE,
      gas: ESTIMATE,
      value: 16n,
      chainId: CHAIN_ID,
      tip: DEFAULT_TIP,
      cap: 2n * BASE_FEE + DEFAULT_TIP,
    })
    // the estimate ran with the filled fees, without gas or nonce
    expect(n.estimates[0]).toMatchObject({
      gas: undefined,
      nonce: undefined,
      maxFeePerGas: 2n * BASE_FEE + DEFAULT_TIP,
      value: 16n,
    })
  })

  it('keeps what the client gave: gas, nonce, fees, data', async () => {
    const n = node()
    await send(n, { gas: '0x7530', nonce: '0x9', maxFeePerGas: '0x64', maxPriorityFeePerGas: '0x3', input: '0xabcd' })
    const tx = decoded(n.submitted[0])
    expect(n.estimates).toEqual([])
    expect(tx.toJSON()).toMatchObject({
      gasLimit: '0x7530',
      nonce: '0x9',
      maxFeePerGas: '0x64',
      maxPriorityFeePerGas: '0x3',
      data: '0xabcd',
    })
  })

  it('is legacy (EIP-155) with gasPrice, an access-list transaction with gasPrice and accessList', async () => {
    const n = node()
    await send(n, { gasPrice: '0x3b9aca00' })
    const legacy = decoded(n.submitted[0])
    expect(legacy.type).toBe(0)
    expect([CHAIN_ID * 2n + 35n, CHAIN_ID * 2n + 36n]).toContain(legacy.v)
    expect(legacy.getSenderAddress().toString()).toBe(FROM)
    const list = [{ address: TO, storageKeys: [`0x${'00'.repeat(31)}01`] }]
    await send(n, { gasPrice: '0x3b9aca00', accessList: list })
    const typed1 = decoded(n.submitted[1])
    expect(typed1.type).toBe(1)
    expect(typed1.toJSON().accessList).toEqual(list)
    expect(typed1.getSenderAddress().toString()).toBe(FROM)
    // a request with no fee field may ask for a legacy transaction by type: the 1559 fee cap is its price
    await send(n, { type: '0x0' })
    const byType = decoded(n.submitted[2])
    expect(byType.type).toBe(0)
    expect('gasPrice' in byType ? byType.gasPrice : 0n).toBe(2n * BASE_FEE + DEFAULT_TIP)
  })

  it('gives consecutive nonces to sends of one account running side by side', async () => {
    const n = node()
    const answers = await Promise.all([send(n, {}), send(n, {}), send(n, {})])
    expect(answers.every((a) => a.result !== undefined)).toBe(true)
    expect(n.submitted.map((raw) => decoded(raw).nonce)).toEqual([STATE_NONCE, STATE_NONCE + 1n, STATE_NONCE + 2n])
  })

  it.each([
    [{ from: `0x${'33'.repeat(20)}` }, 'unknown account'],
    [{ from: null }, 'unknown account'],
    [{ gasPrice: '0x1', maxFeePerGas: '0x2' }, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified'],
    [
      { gasPrice: '0x1', maxPriorityFeePerGas: '0x2' },
      'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    ],
    [{ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }, 'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)'],
    [{ maxFeePerGas: '0x1' }, 'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x3b9aca00)'],
    [{ maxFeePerGas: '0x0', maxPriorityFeePerGas: '0x0' }, 'maxFeePerGas must be non-zero'],
    [{ gasPrice: '0x0' }, 'gasPrice must be non-zero after london fork'],
    [{ chainId: '0x1' }, "chainId does not match node's (have=1, want=1337)"],
    [{ to: null }, 'contract creation without any data provided'],
    [
      { data: '0x01', input: '0x02' },
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    ],
    [{ blobVersionedHashes: [`0x01${'00'.repeat(31)}`] }, 'signing blob transactions not supported'],
  ])('refuses %j: -32000 %s', async (fields, message) => {
    const n = node()
    expect(await send(n, fields)).toEqual({ error: { code: -32000, message } })
    expect(n.submitted).toEqual([])
  })

  it('answers unknown account for everyone on a node without unlocked accounts', async () => {
    const n = node(UnlockedAccounts.none())
    expect(await callMethod(ethNamespace, n.backend, 'eth_accounts')).toEqual({ result: [] })
    expect(await send(n, {})).toEqual({ error: { code: -32000, message: 'unknown account' } })
    const sign = await callMethod(ethNamespace, n.backend, 'eth_sign', [DEV0.address, '0x00'])
    expect(sign).toEqual({ error: { code: -32000, message: 'unknown account' } })
  })
})

describe('eth_signTransaction', () => {
  it("returns the raw bytes and geth's JSON of the signed transaction", async () => {
    const n = node()
    const fields = {
      from: DEV0.address,
      to: TO,
      gas: '0x5208',
      nonce: '0x1',
      maxFeePerGas: '0x64',
      maxPriorityFeePerGas: '0x2',
      value: '0x5',
    }
    const { result } = await callMethod(ethNamespace, n.backend, 'eth_signTransaction', [fields])
    const { raw, tx } = result as { raw: string; tx: Record<string, unknown> }
    const signed = createTxFromRLP(hexToBytes(raw), { common: COMMON })
    expect(signed.getSenderAddress().toString()).toBe(FROM)
    expect(tx).toEqual({
      type: '0x2',
      chainId: '0x539',
      nonce: '0x1',
      to: TO,
      gas: '0x5208',
      gasPrice: null,
      maxPriorityFeePerGas: '0x2',
      maxFeePerGas: '0x64',
      value: '0x5',
      input: '0x',
      accessList: [],
      v: `0x${(signed.v as bigint).toString(16)}`,
      r: `0x${(signed.r as bigint).toString(16)}`,
      s: `0x${(signed.s as bigint).toString(16)}`,
      yParity: `0x${(signed.v as bigint).toString(16)}`,
      hash: toData(signed.hash()),
    })
    expect(n.submitted).toEqual([])
  })

  it.each([
    [{ nonce: '0x1', gasPrice: '0x1' }, 'gas not specified'],
    [{ gas: '0x5208', nonce: '0x1', maxFeePerGas: '0x1' }, 'missing gasPrice or maxFeePerGas/maxPriorityFeePerGas'],
    [{ gas: '0x5208', gasPrice: '0x1' }, 'nonce not specified'],
  ])("refuses %j as geth does: '%s'", async (fields, message) => {
    const answer = await callMethod(ethNamespace, node().backend, 'eth_signTransaction', [
      { from: DEV0.address, to: TO, ...fields },
    ])
    expect(answer).toEqual({ error: { code: -32000, message } })
  })
})

describe('message and typed-data signatures', () => {
  const viemAccount = privateKeyToAccount(DEV0.privateKey as `0x${string}`)

  it("eth_sign and personal_sign give the very signature viem's local account makes (RFC 6979), v 27/28", async () => {
    const n = node()
    const data = '0x68656c6c6f'
    const expected = await viemAccount.signMessage({ message: { raw: data } })
    expect(await callMethod(ethNamespace, n.backend, 'eth_sign', [DEV0.address, data])).toEqual({ result: expected })
    expect(await callMethod(personalNamespace, n.backend, 'personal_sign', [data, DEV0.address])).toEqual({
      result: expected,
    })
    // the password of geth's old personal_sign is accepted and ignored
    expect(await callMethod(personalNamespace, n.backend, 'personal_sign', [data, DEV0.address, 'pw'])).toEqual({
      result: expected,
    })
    expect(verifyMessage(hexToBytes(data), expected)).toBe(DEV0.address)
    expect(await callMethod(personalNamespace, n.backend, 'personal_ecRecover', [data, expected])).toEqual({
      result: FROM,
    })
    const bad = `${expected.slice(0, -2)}01`
    expect(await callMethod(personalNamespace, n.backend, 'personal_ecRecover', [data, bad])).toEqual({
      error: { code: -32000, message: 'invalid Ethereum signature (V is not 27 or 28)' },
    })
  })

  it("eth_signTypedData_v4 gives viem's signature, for the payload as a JSON string or an object", async () => {
    const n = node()
    const typed = {
      domain: { name: 'Ether Mail', version: '1', chainId: 1337, verifyingContract: `0x${'cc'.repeat(20)}` },
      types: {
        Person: [
          { name: 'name', type: 'string' },
          { name: 'wallet', type: 'address' },
        ],
        Mail: [
          { name: 'from', type: 'Person' },
          { name: 'to', type: 'Person' },
          { name: 'contents', type: 'string' },
        ],
      },
      primaryType: 'Mail',
      message: {
        from: { name: 'Cow', wallet: `0x${'cd'.repeat(20)}` },
        to: { name: 'Bob', wallet: `0x${'bb'.repeat(20)}` },
        contents: 'Hello, Bob!',
      },
    } as const
    const expected = await viemAccount.signTypedData(typed)
    for (const payload of [typed, JSON.stringify(typed)]) {
      const answer = await callMethod(ethNamespace, n.backend, 'eth_signTypedData_v4', [DEV0.address, payload])
      expect(answer).toEqual({ result: expected })
    }
    const bad = await callMethod(ethNamespace, n.backend, 'eth_signTypedData_v4', [DEV0.address, '{"types":{}}'])
    expect(bad.error?.code).toBe(-32602)
  })
})
