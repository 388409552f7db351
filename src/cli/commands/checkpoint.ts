/**
 * `ibex checkpoint deploy` and `ibex checkpoint status` (issue 20): the base-chain side of a
 * network's checkpoints, for its operator.
 *
 *   deploy  --checkpoint.base-rpc URL --key FILE [--config node.toml] [--child-rpc URL] [--write-config PATH]…
 *     child chain (a node's JSON-RPC): chain id, head, ValidatorSigners.validatorSet() at the head
 *     base chain: CheckpointManager(childChainId, [checkpoint] max_blocks, signers, powers), then
 *       ExitVault(manager), from the --key account (bytecode: contracts/build/<Name>.json)
 *     with --token NAME:SYMBOL:SUPPLY and --child-key FILE, a bridged token pair as well:
 *       BaseToken(NAME, SYMBOL, SUPPLY) on the base chain, its whole supply moved to the vault (which
 *       pays exits from what it holds), ChildToken(NAME, SYMBOL, child key's address, SUPPLY) on the
 *       child chain from the child key, and ExitVault.mapToken(child, base)
 *     prints the addresses; --write-config sets [checkpoint] enabled, base_rpc, base_chain_id,
 *       manager and vault in each node config (a directory: every node<i>/config.toml in it),
 *       keeping the section's other keys (ibex genesis --checkpoint.base-rpc writes them)
 *   status  [--config node.toml] [--child-rpc URL]
 *     the last checkpoint, the child chain's head and the lag, the proposal being voted (when the
 *     node serves validators_getCheckpointProposal) and the uptime table, from the base chain's
 *     contract and events
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { bytesToHex, concatBytes, hexToBytes } from '@ethereumjs/util'

import { addressOfPrivateKey } from '../../config/accounts.js'
import { ConfigError } from '../../config/errors.js'
import { packageRoot } from '../../config/genesis.js'
import { parsePrivateKeyHex } from '../../config/keys.js'
import type { CommandExtra } from '../../config/load.js'
import type { IbexConfig } from '../../config/types.js'
import { createLogger } from '../../log.js'
import { BaseChain, ManagerReader, Submitter } from '../../validators/checkpoint/baseChain.js'
import { CheckpointHistory } from '../../validators/checkpoint/history.js'
import { addressWord, encodeManagerConstructor, HEADER_BLOCK_STEP, uintWord } from '../../validators/checkpoint/managerAbi.js'
import { keccak256 } from '../../util/keccak.js'
import { UPTIME_SCALE } from '../../validators/checkpoint/uptime.js'
import { decodeValidatorSet, VALIDATOR_SET_CALLDATA, VALIDATOR_SIGNERS_ADDRESS } from '../../validators/index.js'
import type { CliIo } from '../io.js'
import { NODE_CONFIG_FILE } from './genesis-nodes.js'

/** ERC-20 transfer(address,uint256) and ExitVault.mapToken(address,address) selectors. */
const ERC20_TRANSFER_SELECTOR = keccak256(new TextEncoder().encode('transfer(address,uint256)')).slice(0, 4)
const MAP_TOKEN_SELECTOR = keccak256(new TextEncoder().encode('mapToken(address,address)')).slice(0, 4)
/** A deployment transaction must be mined within this long. */
export const DEPLOY_RECEIPT_TIMEOUT_MS = 120_000
/** How often a deployment's receipt is asked for. */
export const DEPLOY_RECEIPT_POLL_MS = 250

type Hex = `0x${string}`

export async function runCheckpoint(config: IbexConfig, extra: CommandExtra, io: CliIo): Promise<number> {
  return extra.checkpointAction === 'deploy' ? deploy(config, extra, io) : status(config, extra, io)
}

function childRpcOf(config: IbexConfig, extra: CommandExtra): string {
  return extra.childRpc ?? `http://127.0.0.1:${config.jsonrpc.port}`
}

/** The creation bytecode of contracts/build/<name>.json. */
function bytecodeOf(name: string): Uint8Array {
  const file = join(packageRoot(), 'contracts', 'build', `${name}.json`)
  let json: { bytecode?: string }
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`${file}: cannot read the contract build (${(err as Error).message}); run npm run contracts`)
  }
  if (typeof json.bytecode !== 'string' || json.bytecode.length < 4) throw new Error(`${file}: no bytecode`)
  return hexToBytes((json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}`) as Hex)
}

async function deployContract(submitter: Submitter, name: string, args: Uint8Array): Promise<Uint8Array> {
  const data = concatBytes(bytecodeOf(name), args)
  const [nonce, gas] = await Promise.all([submitter.pendingNonce(), submitter.estimateGas(undefined, data)])
  const hash = await submitter.send(undefined, data, nonce, gas)
  const receipt = await submitter.chain.waitReceipt(hash, DEPLOY_RECEIPT_TIMEOUT_MS, DEPLOY_RECEIPT_POLL_MS)
  if (!receipt.status || receipt.contractAddress === undefined)
    throw new Error(`${name} deployment ${bytesToHex(hash)} failed (reverted in base block ${receipt.blockNumber})`)
  return receipt.contractAddress
}

async function deploy(config: IbexConfig, extra: CommandExtra, io: CliIo): Promise<number> {
  const c = config.checkpoint
  if (c.baseRpc === '')
    throw new ConfigError('ibex checkpoint deploy needs the base chain: --checkpoint.base-rpc URL (or [checkpoint] base_rpc in --config)')
  if (extra.key === undefined) throw new ConfigError('ibex checkpoint deploy needs --key FILE (the base-chain account paying for it)')
  const key = readKeyFile(extra.key, '--key')

  const childUrl = childRpcOf(config, extra)
  const child = new BaseChain(childUrl)
  const childChainId = await child.chainId()
  const head = await child.blockNumber()
  const set = decodeValidatorSet(await child.call(VALIDATOR_SIGNERS_ADDRESS, VALIDATOR_SET_CALLDATA, `0x${head.toString(16)}`))
  if (set.length === 0)
    throw new Error(`the child chain at ${childUrl} has no validators in its DAO at block ${head}: nothing to sign checkpoints`)

  const base = new BaseChain(c.baseRpc)
  const baseChainId = await base.chainId()
  if (c.baseChainId !== 0 && BigInt(c.baseChainId) !== baseChainId)
    throw new ConfigError(`${c.baseRpc} is chain ${baseChainId}, [checkpoint] base_chain_id says ${c.baseChainId}`)
  const submitter = new Submitter(base, key, hexToBytes(addressOfPrivateKey(key).toLowerCase() as Hex), baseChainId)
  io.out(
    `Deploying to base chain ${baseChainId} (${c.baseRpc}) from ${bytesToHex(submitter.address)} for child chain ${childChainId}: ${set.length} validators at block ${head}, at most ${c.maxBlocks} blocks a checkpoint`,
  )
  const manager = await deployContract(
    submitter,
    'CheckpointManager',
    encodeManagerConstructor(
      childChainId,
      BigInt(c.maxBlocks),
      set.map((v) => v.signer),
      set.map((v) => v.power),
    ),
  )
  io.out(`  CheckpointManager ${bytesToHex(manager)}`)
  const vault = await deployContract(submitter, 'ExitVault', addressWord(manager))
  io.out(`  ExitVault         ${bytesToHex(vault)}`)
  for (const v of set) io.out(`  signer ${bytesToHex(v.signer)}  seat ${v.seat}  power ${v.power}`)

  if (extra.token !== undefined) await deployTokenPair(extra, io, submitter, vault, child, childChainId)

  const values = {
    enabled: 'true',
    base_rpc: JSON.stringify(c.baseRpc),
    base_chain_id: String(baseChainId),
    manager: JSON.stringify(bytesToHex(manager)),
    vault: JSON.stringify(bytesToHex(vault)),
  }
  const files = (extra.writeConfig ?? []).flatMap(configFilesOf)
  for (const file of files) {
    writeFileSync(file, withCheckpointSection(readFileSync(file, 'utf8'), values))
    io.out(`  wrote [checkpoint] into ${file}`)
  }
  if (files.length === 0)
    io.out(
      `Add to each node's config:\n[checkpoint]\n${Object.entries(values)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n')}`,
    )
  return 0
}

/** ABI encoding of constructor arguments: strings (dynamic) and 32-byte words (static), in order. */
function encodeArgs(items: readonly (string | Uint8Array)[]): Uint8Array {
  const head: Uint8Array[] = []
  const tail: Uint8Array[] = []
  let offset = 32 * items.length
  for (const item of items) {
    if (typeof item !== 'string') {
      head.push(item)
      continue
    }
    const bytes = new TextEncoder().encode(item)
    const padded = new Uint8Array(Math.ceil(bytes.length / 32) * 32)
    padded.set(bytes)
    head.push(uintWord(BigInt(offset)))
    tail.push(uintWord(BigInt(bytes.length)), padded)
    offset += 32 + padded.length
  }
  return concatBytes(...head, ...tail)
}

function readKeyFile(path: string, flag: string): Uint8Array {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ConfigError(`${flag} ${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  return parsePrivateKeyHex(text, `${flag} ${path}`)
}

/** Sends a call and waits for it; throws when it reverts. */
async function transact(submitter: Submitter, to: Uint8Array, data: Uint8Array, what: string): Promise<void> {
  const [nonce, gas] = await Promise.all([submitter.pendingNonce(), submitter.estimateGas(to, data)])
  const hash = await submitter.send(to, data, nonce, gas)
  const receipt = await submitter.chain.waitReceipt(hash, DEPLOY_RECEIPT_TIMEOUT_MS, DEPLOY_RECEIPT_POLL_MS)
  if (!receipt.status) throw new Error(`${what} ${bytesToHex(hash)} reverted`)
}

/** The token pair of --token (module doc). */
async function deployTokenPair(
  extra: CommandExtra,
  io: CliIo,
  base: Submitter,
  vault: Uint8Array,
  child: BaseChain,
  childChainId: bigint,
): Promise<void> {
  const token = extra.token as { name: string; symbol: string; supply: bigint }
  if (extra.childKey === undefined)
    throw new ConfigError('--token needs --child-key FILE: the child-chain account that deploys ChildToken and holds its supply')
  const childKey = readKeyFile(extra.childKey, '--child-key')
  const childSubmitter = new Submitter(child, childKey, hexToBytes(addressOfPrivateKey(childKey).toLowerCase() as Hex), childChainId)
  const baseToken = await deployContract(base, 'BaseToken', encodeArgs([token.name, token.symbol, uintWord(token.supply)]))
  await transact(base, baseToken, concatBytes(ERC20_TRANSFER_SELECTOR, addressWord(vault), uintWord(token.supply)), 'moving the supply to the vault')
  const childToken = await deployContract(
    childSubmitter,
    'ChildToken',
    encodeArgs([token.name, token.symbol, addressWord(childSubmitter.address), uintWord(token.supply)]),
  )
  await transact(base, vault, concatBytes(MAP_TOKEN_SELECTOR, addressWord(childToken), addressWord(baseToken)), 'ExitVault.mapToken')
  io.out(`  BaseToken ${token.symbol}     ${bytesToHex(baseToken)} (base chain; ${token.supply} held by the vault)`)
  io.out(`  ChildToken ${token.symbol}    ${bytesToHex(childToken)} (child chain; ${token.supply} held by ${bytesToHex(childSubmitter.address)}), mapped`)
}

/** A config file, or every node<i>/config.toml of a directory (ibex genesis' layout). */
function configFilesOf(path: string): string[] {
  if (!existsSync(path)) throw new ConfigError(`--write-config ${path}: no such file or directory`)
  if (!statSync(path).isDirectory()) return [path]
  const files = readdirSync(path)
    .filter((d) => /^node\d+$/.test(d))
    .map((d) => join(path, d, NODE_CONFIG_FILE))
    .filter((f) => existsSync(f))
  if (files.length === 0) throw new ConfigError(`--write-config ${path}: no node<i>/${NODE_CONFIG_FILE} in it`)
  return files
}

/**
 * withCheckpointSection sets `values` in the TOML text's [checkpoint] section (appended when
 * absent), keeping the section's other lines and the rest of the file as they are.
 */
export function withCheckpointSection(text: string, values: Record<string, string>): string {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => l.trim() === '[checkpoint]')
  if (start === -1) {
    const body = Object.entries(values).map(([k, v]) => `${k} = ${v}`)
    const trimmed = text.endsWith('\n') ? text : `${text}\n`
    return `${trimmed}\n[checkpoint]\n${body.join('\n')}\n`
  }
  let end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l))
  if (end === -1) end = lines.length
  const section = lines.slice(start + 1, end)
  const left = new Map(Object.entries(values))
  const kept = section.map((line) => {
    const m = /^\s*([a-z_]+)\s*=/.exec(line)
    const key = m?.[1]
    if (key === undefined || !left.has(key)) return line
    const value = left.get(key) as string
    left.delete(key)
    return `${key} = ${value}`
  })
  // new keys go right after the header, before any blank line that ends the section
  const added = [...left].map(([k, v]) => `${k} = ${v}`)
  return [...lines.slice(0, start + 1), ...added, ...kept, ...lines.slice(end)].join('\n')
}

function percent(ppm: bigint): string {
  return `${(Number(ppm) / Number(UPTIME_SCALE / 100n)).toFixed(1)}%`
}

async function status(config: IbexConfig, extra: CommandExtra, io: CliIo): Promise<number> {
  const c = config.checkpoint
  if (c.baseRpc === '' || c.manager === '')
    throw new ConfigError(
      'ibex checkpoint status needs [checkpoint] base_rpc and manager: --config node.toml (or --checkpoint.base-rpc and --checkpoint.manager)',
    )
  const chain = new BaseChain(c.baseRpc)
  const reader = new ManagerReader(chain, hexToBytes(c.manager as Hex))
  const history = new CheckpointHistory({ chain, reader, uptimeWindow: c.uptimeWindow, log: createLogger('warn') })
  await history.refresh()
  const latest = await history.latest()
  const set = await reader.set()
  io.out(`CheckpointManager ${c.manager} on ${c.baseRpc}: ${history.count} checkpoints, ${set.signers.length} signers`)
  let head: bigint | undefined
  const childUrl = childRpcOf(config, extra)
  const childRpc = new BaseChain(childUrl)
  try {
    head = await childRpc.blockNumber()
  } catch {
    io.out(`  (child chain ${childUrl} not reachable: no lag shown)`)
  }
  if (latest === undefined) io.out(`  no checkpoint yet${head === undefined ? '' : `; child head ${head}`}`)
  else {
    const createdAt = await history.createdAt(latest.id)
    const age = createdAt === undefined ? '?' : `${Math.max(0, Math.round(Date.now() / 1000 - Number(createdAt)))} s ago`
    io.out(
      `  last: #${latest.id / HEADER_BLOCK_STEP} (id ${latest.id}) blocks ${latest.start}..${latest.end}, root ${bytesToHex(latest.root)}, ${latest.signers.length} signatures, proposer ${bytesToHex(latest.proposer)}, ${age}`,
    )
    if (head !== undefined) io.out(`  child head ${head}: ${head - latest.end} blocks not checkpointed yet`)
  }
  try {
    const proposal = await childRpc.rpc<{ start: string; end: string; proposer: string; signers: string[]; quorum: boolean } | null>(
      'validators_getCheckpointProposal',
    )
    if (proposal !== null)
      io.out(
        `  being voted: blocks ${BigInt(proposal.start)}..${BigInt(proposal.end)} by ${proposal.proposer}, ${proposal.signers.length} signatures${proposal.quorum ? ' (quorum)' : ''}`,
      )
  } catch {
    // the node does not serve the validators namespace, or runs no checkpoint service
  }
  const report = history.uptime(set.signers)
  io.out(
    `Uptime over the last ${report.checkpoints} checkpoints (window ${c.uptimeWindow}); median ${percent(report.medianPpm)}, benchmark ${percent(report.benchmarkPpm)}:`,
  )
  for (const v of report.validators)
    io.out(`  ${bytesToHex(v.signer)}  ${String(v.signed).padStart(5)} / ${String(v.of).padEnd(5)} ${percent(v.uptimePpm).padStart(6)}  ${v.health}`)
  return 0
}
