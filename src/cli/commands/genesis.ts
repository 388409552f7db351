/**
 * `ibex genesis (--validators N | --addresses LIST) --out DIR`: the keys and genesis.json of an
 * IBFT network. The base is the --genesis file if given, else the --network preset (dev: the funded
 * test accounts; testnet/mainnet: the shipped file); its validator list is replaced, `--chain-id`,
 * the block time and `--prefund ADDR=WEI` accounts are applied. With --validators it also lays out
 * a local network: DIR/node<i>/ for every validator and `--full-nodes M` full nodes, each with its
 * p2p key and a config.toml (genesis-nodes.ts). Existing files are never overwritten.
 *
 * With --validators, when the base carries the Validator DAO (every preset does), the new
 * validators are seated in it (src/config/genesisSeats.ts): one seat each, Tier III first, the
 * tier's minimum stake locked, KYC attested, the validator's own key as holder and signer, so
 * ValidatorSigners.validatorSet() lists them from block 0. --addresses only lists the validators in
 * extraData (their owners hold the keys and apply through the DAO), as does a --genesis file
 * without the DAO.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import {
  type GethGenesis,
  IBFT_EPOCH_SIZE,
  buildGenesis,
  loadPresetGenesis,
  normalizeAddress,
  readGenesisFile,
  withValidators,
} from '../../config/genesis.js'
import { addressOfPrivateKey } from '../../config/accounts.js'
import { type GenesisSeat, carriesValidatorSigners, seatGenesisValidators } from '../../config/genesisSeats.js'
import { ConfigError } from '../../config/errors.js'
import { newPrivateKey, writeKeyFile } from '../../config/keys.js'
import type { CommandExtra } from '../../config/load.js'
import type { IbexConfig } from '../../config/types.js'
import { DEFAULT_HTTP_PORT, DEFAULT_P2P_PORT } from '../../config/defaults.js'
import { writeNodeKey } from '../../p2p/identity.js'
import type { CliIo } from '../io.js'
import { NODE_CONFIG_FILE, nodeFiles, planNodes } from './genesis-nodes.js'

/** GENESIS_FILE is the name written into --out. */
export const GENESIS_FILE = 'genesis.json'

export function validatorKeyFileName(index: number): string {
  return `validator-${index}.key`
}

/** makeGenesis builds the genesis for `validators` following the rules in this module's doc. */
export function makeGenesis(config: IbexConfig, validators: string[], chainId?: number): GethGenesis {
  let genesis: GethGenesis
  if (config.genesisFile !== undefined) genesis = withValidators(readGenesisFile(config.genesisFile), validators)
  else if (config.network === 'dev') genesis = buildGenesis(config, validators)
  else genesis = withValidators(loadPresetGenesis(config.network), validators)
  if (chainId !== undefined) genesis.config.chainId = chainId
  genesis.config.ibft = {
    ...(genesis.config.ibft ?? { epochSize: IBFT_EPOCH_SIZE }),
    blockTime: config.blockTimeMs / 1000,
  }
  return genesis
}

export async function runGenesis(config: IbexConfig, extra: CommandExtra, io: CliIo): Promise<number> {
  const out = extra.out as string
  const count = extra.validators ?? 0
  const keyFiles = Array.from({ length: count }, (_, i) => join(out, validatorKeyFileName(i)))
  const genesisPath = join(out, GENESIS_FILE)
  const nodes =
    extra.validators === undefined
      ? []
      : planNodes(
          out,
          keyFiles,
          extra.fullNodes ?? 0,
          extra.httpBasePort ?? DEFAULT_HTTP_PORT,
          extra.p2pBasePort ?? DEFAULT_P2P_PORT,
        )
  const lastPort = Math.max(0, ...nodes.map((n) => Math.max(n.httpPort, n.p2pPort)))
  if (lastPort > 65535)
    throw new ConfigError(`ibex genesis: node ${nodes.length} would need port ${lastPort} (above 65535)`)
  const nodeFileSets = nodes.map((n) => nodeFiles(n, nodes, config))
  const nodePaths = nodes.flatMap((n, i) =>
    [...(nodeFileSets[i] as Map<string, unknown>).keys()].map((f) => join(n.dir, f)),
  )
  for (const path of [genesisPath, ...keyFiles, ...nodePaths]) {
    if (existsSync(path))
      throw new ConfigError(
        `--out ${out}: ${path} already exists (ibex genesis never overwrites; choose an empty directory)`,
      )
  }

  const keys = keyFiles.map(() => newPrivateKey())
  const validators = extra.addresses?.map(normalizeAddress) ?? keys.map(addressOfPrivateKey)
  const genesis = makeGenesis(config, validators, extra.chainId)
  // new keys are seated; --addresses belong to their owners, who apply through the DAO themselves
  const seats =
    extra.validators !== undefined && carriesValidatorSigners(genesis)
      ? await seatGenesisValidators(genesis, validators)
      : undefined
  for (const { address, wei } of extra.prefund ?? []) {
    const key = Object.keys(genesis.alloc).find(
      (k) => k.toLowerCase().replace(/^(?!0x)/, '0x') === address.toLowerCase(),
    )
    genesis.alloc[key ?? normalizeAddress(address)] = {
      ...(key === undefined ? {} : genesis.alloc[key]),
      balance: `0x${wei.toString(16)}`,
    }
  }

  mkdirSync(out, { recursive: true })
  for (const [i, key] of keys.entries()) writeKeyFile(keyFiles[i] as string, key)
  writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`, { flag: 'wx' })
  for (const [i, node] of nodes.entries()) {
    mkdirSync(node.dir, { recursive: true, mode: 0o700 })
    for (const [name, content] of nodeFileSets[i] as Map<string, string | Uint8Array>) {
      if (typeof content === 'string') writeFileSync(join(node.dir, name), content, { flag: 'wx' })
      else writeNodeKey(join(node.dir, name), content)
    }
  }

  io.out(
    `Wrote ${genesisPath} (chain id ${genesis.config.chainId}, ${validators.length} validators, block time ${genesis.config.ibft?.blockTime}s)`,
  )
  for (const [i, address] of validators.entries()) {
    io.out(`  (${i}) ${address}${keyFiles[i] === undefined ? '' : `  key: ${keyFiles[i]}`}${seatNote(seats?.[i])}`)
  }
  if (seats === undefined && extra.validators !== undefined)
    io.out('  (the base genesis has no Validator DAO: the validators are not seated)')
  for (const n of nodes) {
    const role = n.validatorKey === undefined ? 'full node' : `validator ${n.index - 1}`
    io.out(`  node${n.index} (${role}): http://127.0.0.1:${n.httpPort}, p2p ${n.p2pPort}, peer id ${n.peerId}`)
  }
  if (nodes.length > 0) io.out(`Start node i with: ibex start --config ${join(out, 'node<i>', NODE_CONFIG_FILE)}`)
  if (nodes.length > 0 && config.checkpoint.baseRpc !== '')
    io.out(
      `Checkpoints go to ${config.checkpoint.baseRpc} once the contracts are deployed (with the nodes running): ibex checkpoint deploy --config ${join(out, 'node1', NODE_CONFIG_FILE)} --key FUNDED.key --write-config ${out}, then restart the nodes`,
    )
  return 0
}

const COIN_WEI = 10n ** 18n
const TIER_NAMES = ['', 'I', 'II', 'III']

/** seatNote: `  seat 51 (Tier III, 222222 coins locked)` for a seated validator. */
function seatNote(seat: GenesisSeat | undefined): string {
  if (seat === undefined) return ''
  const coins = seat.stake % COIN_WEI === 0n ? `${seat.stake / COIN_WEI} coins` : `${seat.stake} wei`
  return `  seat ${seat.seat} (Tier ${TIER_NAMES[seat.tier]}, ${coins} locked)`
}
