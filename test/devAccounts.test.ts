/**
 * The dev chain's accounts sign for their users, as anvil's and hardhat's do: `ibex start --network
 * dev` through the binary, then real clients that leave signing to the node — cast's `send
 * --unlocked`, viem's wallet client with a JSON-RPC account, ethers' JsonRpcSigner — and their own
 * verifiers over what the node signed (personal_sign, eth_sign, eth_signTypedData_v4). On a testnet
 * node the same requests meet geth's answers for a node without unlocked accounts.
 */
import { spawnSync } from 'node:child_process'
import {
  getAddress,
  JsonRpcProvider,
  Network,
  verifyMessage as ethersVerifyMessage,
  verifyTypedData as ethersVerifyTypedData,
} from 'ethers'
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  type PublicClient,
  recoverMessageAddress,
  verifyMessage,
  verifyTypedData,
} from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cast } from './helpers/cast.js'
import { DEV_ACCOUNTS, DEV_CHAIN_ID, randomAddress } from './helpers/dev.js'
import { cleanupNodes, IBEX_BIN, type IbexNode, makeTempDir, rpc, rpcResponse, startNode } from './helpers/node.js'

const DEV0 = DEV_ACCOUNTS[0].address
const DEV1 = DEV_ACCOUNTS[1].address
const RECEIPT_OPTS = { pollingInterval: 50, timeout: 30_000 } as const

/** The EIP-712 spec's example (its hash is 0xbe609aee…7bd2), with the domain's chain id set per test. */
const MAIL_TYPES = {
  Person: [
    { name: 'name', type: 'string' },
    { name: 'wallet', type: 'address' },
  ],
  Mail: [
    { name: 'from', type: 'Person' },
    { name: 'to', type: 'Person' },
    { name: 'contents', type: 'string' },
  ],
} as const
const MAIL = {
  from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
  to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
  contents: 'Hello, Bob!',
} as const
const MAIL_DOMAIN = {
  name: 'Ether Mail',
  version: '1',
  chainId: DEV_CHAIN_ID,
  verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
} as const

describe('dev accounts on the dev preset', () => {
  let node: IbexNode
  let chain: Chain
  let pub: PublicClient

  beforeAll(async () => {
    node = await startNode()
    chain = defineChain({
      id: DEV_CHAIN_ID,
      name: 'ibex dev',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    })
    pub = createPublicClient({ chain, transport: http(node.url, { retryCount: 0 }), pollingInterval: 50, cacheTime: 0 })
  })

  afterAll(cleanupNodes)

  it('eth_accounts lists the ten accounts of the test mnemonic', async () => {
    const accounts = (await rpc<string[]>(node.url, 'eth_accounts')).map((a) => getAddress(a))
    expect(accounts).toEqual(DEV_ACCOUNTS.map((a) => a.address))
  })

  it('cast send --unlocked sends 1 ether from account 0', async () => {
    const to = randomAddress()
    const r = await cast([
      'send',
      '--unlocked',
      '--from',
      DEV0,
      to,
      '--value',
      '1ether',
      '--rpc-url',
      node.url,
      '--json',
    ])
    expect(r.code, r.stderr).toBe(0)
    const receipt = JSON.parse(r.stdout) as { status: string; from: string; type: string; transactionHash: string }
    expect(receipt.status).toBe('0x1')
    expect(getAddress(receipt.from)).toBe(DEV0)
    expect(receipt.type).toBe('0x2')
    expect(await pub.getBalance({ address: to })).toBe(10n ** 18n)
    // and replays it, as a foundry user debugging a send would
    const run = await cast(['run', receipt.transactionHash, '--rpc-url', node.url])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('Transaction successfully executed.')
  })

  it('cast send --unlocked --legacy sends a legacy transaction', async () => {
    const to = randomAddress()
    const r = await cast([
      'send',
      '--unlocked',
      '--legacy',
      '--from',
      DEV1,
      to,
      '--value',
      '2wei',
      '--rpc-url',
      node.url,
      '--json',
    ])
    expect(r.code, r.stderr).toBe(0)
    const receipt = JSON.parse(r.stdout) as { status: string; type: string }
    expect(receipt).toMatchObject({ status: '0x1', type: '0x0' })
    expect(await pub.getBalance({ address: to })).toBe(2n)
  })

  it('viem: a JSON-RPC account sends, signs a message and signs typed data', async () => {
    const wallet = createWalletClient({ account: DEV0, chain, transport: http(node.url, { retryCount: 0 }) })
    expect(await wallet.getAddresses()).toEqual(DEV_ACCOUNTS.map((a) => a.address))
    const to = randomAddress()
    const hash = await wallet.sendTransaction({ to, value: parseEther('0.5') })
    const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    expect(receipt.status).toBe('success')
    expect(getAddress(receipt.from)).toBe(DEV0)
    expect(await pub.getBalance({ address: to })).toBe(parseEther('0.5'))

    const message = 'hello from a dev account'
    const signature = await wallet.signMessage({ message })
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/)
    expect(['1b', '1c']).toContain(signature.slice(-2))
    expect(await verifyMessage({ address: DEV0, message, signature })).toBe(true)
    // the same digest through eth_sign (address first)
    const viaEthSign = await rpc<`0x${string}`>(node.url, 'eth_sign', [
      DEV0,
      `0x${Buffer.from(message).toString('hex')}`,
    ])
    expect(viaEthSign).toBe(signature)
    const raw = await wallet.signMessage({ message: { raw: '0xdeadbeef' } })
    expect(await recoverMessageAddress({ message: { raw: '0xdeadbeef' }, signature: raw })).toBe(DEV0)

    const typed = { domain: MAIL_DOMAIN, types: MAIL_TYPES, primaryType: 'Mail', message: MAIL } as const
    const typedSignature = await wallet.signTypedData(typed)
    expect(await verifyTypedData({ address: DEV0, signature: typedSignature, ...typed })).toBe(true)
    // the typed data as an object instead of a JSON string: same signature
    const asObject = await rpc<string>(node.url, 'eth_signTypedData_v4', [
      DEV0,
      {
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
          ...MAIL_TYPES,
        },
        primaryType: 'Mail',
        domain: MAIL_DOMAIN,
        message: MAIL,
      },
    ])
    expect(asObject).toBe(typedSignature)
  })

  it('ethers: JsonRpcSigner sends, signs a message and signs typed data', async () => {
    const network = Network.from(DEV_CHAIN_ID)
    const provider = new JsonRpcProvider(node.url, network, {
      staticNetwork: network,
      pollingInterval: 50,
      cacheTimeout: -1,
    })
    try {
      const signer = await provider.getSigner(0)
      expect(signer.address).toBe(DEV0)
      const to = randomAddress()
      const tx = await signer.sendTransaction({ to, value: 12345n })
      const receipt = await tx.wait(1, 30_000)
      expect(receipt?.status).toBe(1)
      expect(receipt?.from).toBe(DEV0)
      expect(await provider.getBalance(to)).toBe(12345n)

      const message = 'ethers asks the node to sign'
      const signature = await signer.signMessage(message)
      expect(ethersVerifyMessage(message, signature)).toBe(DEV0)

      const types = { Person: [...MAIL_TYPES.Person], Mail: [...MAIL_TYPES.Mail] }
      const typedSignature = await signer.signTypedData(MAIL_DOMAIN, types, MAIL)
      expect(ethersVerifyTypedData(MAIL_DOMAIN, types, MAIL, typedSignature)).toBe(DEV0)
    } finally {
      provider.destroy()
    }
  })

  it('refuses a sender the node holds no key for, and conflicting fee fields, in geth words', async () => {
    const stranger = await rpcResponse(node.url, 'eth_sendTransaction', [
      { from: randomAddress(), to: DEV1, value: '0x1' },
    ])
    expect(stranger.error).toEqual({ code: -32000, message: 'unknown account' })
    const both = await rpcResponse(node.url, 'eth_sendTransaction', [
      { from: DEV0, to: DEV1, gasPrice: '0x3b9aca00', maxFeePerGas: '0x3b9aca00' },
    ])
    expect(both.error).toEqual({
      code: -32000,
      message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    })
    const sign = await rpcResponse(node.url, 'eth_sign', [randomAddress(), '0x00'])
    expect(sign.error).toEqual({ code: -32000, message: 'unknown account' })
  })

  it('serves debug (cast run needs it) and personal by default', async () => {
    expect((await rpcResponse(node.url, 'debug_getRawHeader', ['0x0'])).error).toBeUndefined()
    const listed = await rpcResponse(node.url, 'personal_sign', ['0x00', DEV0])
    expect(listed.error).toBeUndefined()
  })
})

describe('no unlocked accounts on the testnet preset', () => {
  let node: IbexNode

  beforeAll(async () => {
    node = await startNode({ network: 'testnet' })
  })

  afterAll(cleanupNodes)

  it('eth_accounts is empty and signing methods answer unknown account', async () => {
    expect(await rpc(node.url, 'eth_accounts')).toEqual([])
    const send = await rpcResponse(node.url, 'eth_sendTransaction', [{ from: DEV0, to: DEV1, value: '0x1' }])
    expect(send.error).toEqual({ code: -32000, message: 'unknown account' })
    const sign = await rpcResponse(node.url, 'eth_sign', [DEV0, '0x00'])
    expect(sign.error).toEqual({ code: -32000, message: 'unknown account' })
    const typedData = { types: MAIL_TYPES, primaryType: 'Mail', domain: MAIL_DOMAIN, message: MAIL }
    const typed = await rpcResponse(node.url, 'eth_signTypedData_v4', [DEV0, JSON.stringify(typedData)])
    expect(typed.error).toEqual({ code: -32000, message: 'unknown account' })
  })

  it('refuses to start with [dev] unlocked_accounts on a public chain id', () => {
    const r = spawnSync(
      process.execPath,
      [
        IBEX_BIN,
        'start',
        '--network',
        'testnet',
        '--datadir',
        makeTempDir(),
        '--http.port',
        '0',
        '--dev.unlocked-accounts=true',
      ],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    )
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(
      "ibex: [dev] unlocked_accounts is refused on chain 7860: the test mnemonic's keys are public",
    )
  })

  it('serves neither personal nor debug unless configured', async () => {
    const personal = await rpcResponse(node.url, 'personal_sign', ['0x00', DEV0])
    expect(personal.error).toEqual({
      code: -32601,
      message: 'the method personal_sign does not exist/is not available',
    })
    const debug = await rpcResponse(node.url, 'debug_getRawHeader', ['0x0'])
    expect(debug.error?.code).toBe(-32601)
  })
})
