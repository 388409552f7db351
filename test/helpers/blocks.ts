/**
 * Chains for the differential tests of the block executor (blockExec.test.ts): the dev chain with
 * BenchToken (bench/seed/Bench.sol) and a Probe contract deployed, SENDERS derived accounts funded
 * with ether and tokens — the same blocks on every chain, so chains built with the executor's
 * layers on and off can be compared block by block. No production code imports it.
 */
import { createRequire } from 'node:module'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import type { Common } from '@ethereumjs/common'
import { Address, bytesToHex, createContractAddress, hexToBytes } from '@ethereumjs/util'
import { compileBench } from './compile.js'
import { encodeStoredReceipts } from '../../src/chain/receipt.js'
import { devAccounts } from '../../src/config/accounts.js'
import { keccak256, privateKeyToAddressBytes } from '../../src/util/crypto.js'
import type { PoolTx } from '../../src/txpool/index.js'
import { validateTransaction } from '../../src/txpool/validate.js'
import { BlockBuilder } from '../../src/consensus/blockBuilder.js'
import { openTestChain } from './chain.js'

/** Derived accounts funded by the setup blocks. */
export const SENDERS = 32
export const DEV = devAccounts(10) as { address: string; privateKey: string }[]
/** Dev account 9 seals and is the coinbase. */
export const VALIDATOR = DEV[9] as { address: string; privateKey: string }

const PROBE_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Ephemeral {
    constructor() payable { selfdestruct(payable(msg.sender)); }
}
contract Probe {
    uint256 public seen;
    uint256 public count;
    mapping(address => uint256) public hits;
    function readCoinbase() external { seen = block.coinbase.balance; hits[msg.sender]++; }
    function bump() external { count++; }
    function touch() external { hits[msg.sender]++; }
    function fail() external { hits[msg.sender]++; revert("probe: fail"); }
    function burn() external { while (gasleft() > 0) { count++; } }
    function pay(address payable to) external payable { to.transfer(msg.value); }
    function spawn() external { new Ephemeral(); hits[msg.sender]++; }
}`

export interface Key {
  privateKey: Uint8Array
  address: string
}

export const senderKeys: Key[] = Array.from({ length: SENDERS }, (_, i) => {
  const privateKey = keccak256(Buffer.from(`ibex-parallel-test/${i}`))
  return { privateKey, address: bytesToHex(privateKeyToAddressBytes(privateKey)) }
})
export const devKey = (i: number): Key => ({
  privateKey: hexToBytes((DEV[i] as Key & { privateKey: string }).privateKey as `0x${string}`),
  address: (DEV[i] as { address: string }).address.toLowerCase(),
})

let compiled: { token: string; probe: string; ephemeral: string } | undefined
function contracts() {
  if (compiled !== undefined) return compiled
  const require = createRequire(import.meta.url)
  const solc = require('solc') as { compile(input: string): string }
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Probe.sol': { content: PROBE_SOURCE } },
        settings: {
          evmVersion: 'shanghai',
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
        },
      }),
    ),
  )
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`Probe.sol: ${JSON.stringify(errors)}`)
  const c = out.contracts['Probe.sol']
  compiled = {
    token: compileBench().BenchToken.bytecode,
    probe: `0x${c.Probe.evm.bytecode.object}`,
    ephemeral: `0x${c.Ephemeral.evm.bytecode.object}`,
  }
  return compiled
}

const word = (n: bigint | string) =>
  (typeof n === 'bigint' ? n.toString(16) : n.replace(/^0x/, '').toLowerCase()).padStart(64, '0')
const selector = (sig: string) =>
  Buffer.from(keccak256(Buffer.from(sig)))
    .subarray(0, 4)
    .toString('hex')
export const call = {
  transfer: (to: string, value: bigint) => `0x${selector('transfer(address,uint256)')}${word(to)}${word(value)}`,
  transferMany: (to: string[], value: bigint) =>
    `0x${selector('transferMany(address[],uint256)')}${word(64n)}${word(value)}${word(BigInt(to.length))}${to.map((t) => word(t)).join('')}`,
  probe: (name: 'readCoinbase' | 'bump' | 'touch' | 'fail' | 'burn' | 'spawn') => `0x${selector(`${name}()`)}`,
  pay: (to: string) => `0x${selector('pay(address)')}${word(to)}`,
}

/** Where the setup deploys things: dev 0 deploys the token (nonce 0), dev 1 the probe (nonce 0). */
export const TOKEN = createContractAddress(new Address(hexToBytes(DEV[0]?.address as `0x${string}`)), 0n).toString()
export const PROBE = createContractAddress(new Address(hexToBytes(DEV[1]?.address as `0x${string}`)), 0n).toString()

export type TxFields = Record<string, unknown>

/** A signed type-2 transaction (fields override the defaults: 1 gwei tip, 10 gwei cap, 200k gas). */
export function sign(common: Common, key: Key, fields: TxFields): Uint8Array {
  const tx = createTx(
    {
      type: 2,
      gasLimit: 200_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      value: 0n,
      ...fields,
    } as never,
    { common },
  )
  return tx.sign(key.privateKey).serialize()
}

export function initcode(name: 'token' | 'probe' | 'ephemeral'): string {
  const c = contracts()
  return name === 'token' ? `${c.token}${word(10n ** 27n)}` : c[name]
}

/** How the executor runs plain transfers: its transfers layer, or runTx like everything else. */
export type Mode = 'layers' | 'runTx'

export interface DiffChain {
  chain: Awaited<ReturnType<typeof openTestChain>>
  builder: BlockBuilder
  close(): Promise<void>
}

export async function openDiffChain(dirs: string[], mode: Mode, storageThroughTrie = false): Promise<DiffChain> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-blockexec-'))
  dirs.push(dir)
  const chain = await openTestChain(dir, { validator: VALIDATOR })
  const builder = await BlockBuilder.create({
    store: chain.store,
    common: chain.common,
    trie: chain.trie,
    privateKey: hexToBytes(VALIDATOR.privateKey as `0x${string}`),
    coinbase: hexToBytes(VALIDATOR.address as `0x${string}`),
    baseFeeRecipient: undefined,
    syncWrites: false,
    fastTransfers: mode === 'layers',
    storageThroughTrie,
  })
  return {
    chain,
    builder,
    async close() {
      await chain.db.close()
    },
  }
}

/** Admits raw transactions as the pool would (balances and nonces not checked: the block decides). */
export async function admit(c: DiffChain, raws: Uint8Array[]): Promise<PoolTx[]> {
  const ctx = { ...c.chain.admission(), account: async () => ({ nonce: 0n, balance: 10n ** 30n }) }
  const out: PoolTx[] = []
  for (const raw of raws) out.push(await validateTransaction(raw, ctx))
  return out
}

/** Builds the next block from `raws` and sums up everything a user could see of it. */
export async function buildBlock(c: DiffChain, raws: Uint8Array[]) {
  const { store } = c.chain
  const candidates = await admit(c, raws)
  const { block, included, dropped } = await c.builder.build(candidates, store.head.header.timestamp + 1n)
  const receipts = store.getReceipts(block.hash) ?? []
  const summary = {
    hash: bytesToHex(block.hash),
    stateRoot: bytesToHex(block.header.stateRoot),
    gasUsed: block.header.gasUsed,
    bloom: bytesToHex(block.header.logsBloom),
    receipts: Buffer.from(encodeStoredReceipts(receipts)).toString('hex'),
    statuses: receipts.map((r) => r.status),
    included: included.map((p) => p.hashHex),
    dropped: dropped.map((d) => `${d.ptx.hashHex} ${d.reason}`),
  }
  return { summary }
}

/** The setup blocks: contracts deployed, SENDERS accounts funded with ether and 10^21 tokens each. */
export function setupBlocks(common: Common): Uint8Array[][] {
  const deploy = [
    sign(common, devKey(0), { nonce: 0n, to: undefined, data: initcode('token'), gasLimit: 2_000_000n }),
    sign(common, devKey(1), { nonce: 0n, to: undefined, data: initcode('probe'), gasLimit: 2_000_000n }),
  ]
  const fund: Uint8Array[] = []
  senderKeys.forEach((k, i) => {
    const from = 2 + (i % 7)
    fund.push(
      sign(common, devKey(from), {
        nonce: BigInt(Math.floor(i / 7)),
        to: k.address,
        value: 10n ** 20n,
        gasLimit: 21_000n,
      }),
    )
  })
  const addresses = senderKeys.map((k) => k.address)
  fund.push(
    sign(common, devKey(0), {
      nonce: 1n,
      to: TOKEN,
      data: call.transferMany(addresses, 10n ** 21n),
      gasLimit: 3_000_000n,
    }),
  )
  return [deploy, fund]
}
