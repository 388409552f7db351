/**
 * `ibex genesis (--validators N | --addresses LIST) --out DIR`: the keys and genesis.json of an
 * IBFT network. The base is the --genesis file if given, else the --network preset (dev: the funded
 * test accounts; testnet/mainnet: the shipped file); its validator list is replaced, `--chain-id`
 * and the block time are applied. Existing files are never overwritten.
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
import { ConfigError } from '../../config/errors.js'
import { newPrivateKey, writeKeyFile } from '../../config/keys.js'
import type { CommandExtra } from '../../config/load.js'
import type { IbexConfig } from '../../config/types.js'
import type { CliIo } from '../io.js'

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

export function runGenesis(config: IbexConfig, extra: CommandExtra, io: CliIo): number {
  const out = extra.out as string
  const count = extra.validators ?? 0
  const keyFiles = Array.from({ length: count }, (_, i) => join(out, validatorKeyFileName(i)))
  const genesisPath = join(out, GENESIS_FILE)
  for (const path of [genesisPath, ...keyFiles]) {
    if (existsSync(path))
      throw new ConfigError(
        `--out ${out}: ${path} already exists (ibex genesis never overwrites; choose an empty directory)`,
      )
  }

  const keys = keyFiles.map(() => newPrivateKey())
  const validators = extra.addresses?.map(normalizeAddress) ?? keys.map(addressOfPrivateKey)
  const genesis = makeGenesis(config, validators, extra.chainId)

  mkdirSync(out, { recursive: true })
  for (const [i, key] of keys.entries()) writeKeyFile(keyFiles[i] as string, key)
  writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`, { flag: 'wx' })

  io.out(
    `Wrote ${genesisPath} (chain id ${genesis.config.chainId}, ${validators.length} validators, block time ${genesis.config.ibft?.blockTime}s)`,
  )
  for (const [i, address] of validators.entries()) {
    io.out(`  (${i}) ${address}${keyFiles[i] === undefined ? '' : `  key: ${keyFiles[i]}`}`)
  }
  if (keyFiles.length > 0) {
    io.out(
      `Start validator i with: ibex start --genesis ${genesisPath} --validator-key ${join(out, 'validator-<i>.key')} --datadir DIR`,
    )
  }
  return 0
}
