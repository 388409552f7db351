/**
 * The transactions the tracer differential test replays on ibex and on anvil: contracts of
 * test/trace/fixtures/Trace.sol deployed and exercised by dev account 0, each signed once and
 * sent as the same bytes to both nodes, one transaction per block. Before each transaction anvil
 * is given the coinbase (`miner`) and the base fee of the block ibex mined it in, and that coinbase
 * account as ibex had it at the parent block (code, nonce, balance: on the dev preset it is the
 * DAO's RevenuePool, which also receives every block's base fee, as anvil's coinbase does not), so
 * balances — and so the prestate traces — match to the wei.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { REPO_ROOT } from '../../helpers/compile.js'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from '../../helpers/dev.js'
import { type RpcReceipt, rpc, waitForReceipt } from '../../helpers/node.js'

// biome-ignore lint/suspicious/noExplicitAny: ABI JSON
type Abi = any[]

export interface Compiled {
  abi: Abi
  bytecode: Hex
}

/** Compiles Trace.sol (solc-js, Prague, optimizer on) once. */
export function compileTraceContracts(): Record<string, Compiled> {
  const require = createRequire(import.meta.url)
  const solc = require('solc') as { compile(input: string): string }
  const source = readFileSync(join(REPO_ROOT, 'test', 'trace', 'fixtures', 'Trace.sol'), 'utf8')
  const input = {
    language: 'Solidity',
    sources: { 'Trace.sol': { content: source } },
    settings: {
      evmVersion: 'prague',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`solc: ${JSON.stringify(errors)}`)
  const result: Record<string, Compiled> = {}
  for (const [name, c] of Object.entries(
    out.contracts['Trace.sol'] as Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>,
  )) {
    result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }
  }
  return result
}

export interface SentTx {
  name: string
  hash: Hex
  gas: bigint
  /** The receipt on ibex (the same status and gasUsed on anvil is checked when sending). */
  receipt: RpcReceipt
}

export interface Scenario {
  txs: SentTx[]
  addresses: Record<string, Hex>
  contracts: Record<string, Compiled>
  sender: Hex
}

const MAX_FEE_WEI = 10_000_000_000n
const PRIORITY_FEE_WEI = 1_000_000_000n
const DEFAULT_GAS = 3_000_000n

/**
 * runScenario sends the scenario to both nodes; throws when the two disagree on a receipt.
 * `_coinbase` is not used (anvil takes each block's own `miner` from ibex); it stays
 * so that callers written when the validator was the dev coinbase keep compiling.
 */
export async function runScenario(ibexUrl: string, anvilUrl: string, _coinbase?: string): Promise<Scenario> {
  const C = compileTraceContracts()
  const key = DEV_ACCOUNTS[0].privateKey
  const account = privateKeyToAccount(key)
  let nonce = 0
  const txs: SentTx[] = []
  const addresses: Record<string, Hex> = {}

  async function send(name: string, to: Hex | null, data: Hex, value = 0n, gas = DEFAULT_GAS): Promise<RpcReceipt> {
    const raw = await account.signTransaction({
      chainId: DEV_CHAIN_ID,
      type: 'eip1559',
      to,
      data,
      value,
      gas,
      nonce: nonce++,
      maxFeePerGas: MAX_FEE_WEI,
      maxPriorityFeePerGas: PRIORITY_FEE_WEI,
    })
    const hash = await rpc<Hex>(ibexUrl, 'eth_sendRawTransaction', [raw])
    const receipt = await waitForReceipt(ibexUrl, hash)
    const block = await rpc(ibexUrl, 'eth_getBlockByNumber', [receipt.blockNumber, false])
    const parent = `0x${(BigInt(receipt.blockNumber) - 1n).toString(16)}`
    const coinbase = block.miner as Hex
    await rpc(anvilUrl, 'anvil_setCoinbase', [coinbase])
    await rpc(anvilUrl, 'anvil_setCode', [coinbase, await rpc(ibexUrl, 'eth_getCode', [coinbase, parent])])
    await rpc(anvilUrl, 'anvil_setNonce', [coinbase, await rpc(ibexUrl, 'eth_getTransactionCount', [coinbase, parent])])
    await rpc(anvilUrl, 'anvil_setBalance', [coinbase, await rpc(ibexUrl, 'eth_getBalance', [coinbase, parent])])
    await rpc(anvilUrl, 'anvil_setNextBlockBaseFeePerGas', [block.baseFeePerGas])
    const anvilHash = await rpc<Hex>(anvilUrl, 'eth_sendRawTransaction', [raw])
    const other = await waitForReceipt(anvilUrl, anvilHash)
    if (
      anvilHash !== hash ||
      other.status !== receipt.status ||
      other.gasUsed !== receipt.gasUsed ||
      other.blockNumber !== receipt.blockNumber
    ) {
      throw new Error(`${name}: ibex and anvil disagree: ${JSON.stringify({ ibex: receipt, anvil: other })}`)
    }
    txs.push({ name, hash, gas, receipt })
    return receipt
  }
  const call = (c: string, fn: string, args: unknown[] = []) =>
    encodeFunctionData({ abi: C[c].abi, functionName: fn, args })

  addresses.store = (await send('deploy Store', null, C.Store.bytecode)).contractAddress
  await send('storage writes', addresses.store, call('Store', 'set', [42n]))
  await send('storage clears (refund)', addresses.store, call('Store', 'clear'))
  addresses.loop = (await send('deploy Loop', null, C.Loop.bytecode)).contractAddress
  await send('loop', addresses.loop, call('Loop', 'run', [20n]))
  await send('memory', addresses.loop, call('Loop', 'mem', [3n]))
  addresses.parent = (
    await send('deploy Parent (CREATE in constructor, value)', null, C.Parent.bytecode, 5n)
  ).contractAddress
  await send('nested call with value and a caught revert', addresses.parent, call('Parent', 'nested'), 1000n)
  await send('CREATE2', addresses.parent, call('Parent', 'deploy2', [`0x${'11'.repeat(32)}`]))
  const tokenDeploy = encodeDeployData({ abi: C.Token.abi, bytecode: C.Token.bytecode, args: [1_000_000n] })
  addresses.token = (await send('deploy Token', null, tokenDeploy)).contractAddress
  await send('token transfer', addresses.token, call('Token', 'transfer', [DEV_ACCOUNTS[1].address, 123n]))
  addresses.reverter = (await send('deploy Reverter', null, C.Reverter.bytecode)).contractAddress
  await send('reverted transaction', addresses.reverter, call('Reverter', 'boom'), 0n, 100_000n)
  await send('out of gas', addresses.loop, call('Loop', 'run', [1000n]), 0n, 60_000n)
  addresses.misc = (await send('deploy Misc', null, C.Misc.bytecode)).contractAddress
  await send('DELEGATECALL', addresses.misc, call('Misc', 'viaDelegate', [addresses.store]))
  await send('precompiles (STATICCALL)', addresses.misc, call('Misc', 'precompiles'))
  await send(
    'value to an account without code',
    addresses.misc,
    call('Misc', 'payEoa', [DEV_ACCOUNTS[2].address]),
    777n,
  )
  await send('CREATE that reverts', addresses.misc, call('Misc', 'failCreate'))
  await send('INVALID opcode', addresses.misc, call('Misc', 'invalidOp'), 0n, 100_000n)
  addresses.doomed = (await send('deploy Doomed with value', null, C.Doomed.bytecode, 99n)).contractAddress
  await send('SELFDESTRUCT', addresses.misc, call('Misc', 'destroyChild', [addresses.doomed]))
  // runtime 600101: PUSH1 1, ADD — a stack underflow
  addresses.underflow = (await send('deploy a stack underflow', null, '0x626001015f526003601df3')).contractAddress
  await send('stack underflow', addresses.underflow, '0x', 0n, 100_000n)
  return { txs, addresses, contracts: C, sender: account.address }
}
