/**
 * `ibex chain-info`: print the chain-registry entry and the EIP-3085 wallet parameters of the
 * configured network (src/ops/chainInfo.ts). `ibex faucet`: run the testnet faucet
 * (src/ops/faucet) until SIGINT/SIGTERM.
 */
import { mkdirSync, readFileSync } from 'node:fs'

import { ConfigError } from '../../config/errors.js'
import { parsePrivateKeyHex } from '../../config/keys.js'
import type { IbexConfig } from '../../config/types.js'
import type { CliIo } from '../io.js'

export async function runChainInfo(config: IbexConfig, io: CliIo): Promise<number> {
  const { chainInfo } = await import('../../ops/chainInfo.js')
  const info = chainInfo(config)
  io.out(JSON.stringify({ registry: info.registry, wallet_addEthereumChain: info.wallet_addEthereumChain }, null, 2))
  if (info.missing.length > 0) io.err(`ibex: not set in the config, left empty: ${info.missing.join(', ')}`)
  return 0
}

/** The [faucet] keys an operator sets, as the missing-config message lists them. */
const FAUCET_KEYS = 'key_file (required), rpc_url, amount, cooldown, daily_budget, host, port'

export async function runFaucet(config: IbexConfig, io: CliIo, configFile?: string): Promise<number> {
  const f = config.faucet
  if (configFile === undefined) {
    throw new ConfigError(
      `ibex faucet needs a config file: ibex faucet --config FILE (or $IBEX_CONFIG), with network = "testnet" or "dev" and a [faucet] section: ${FAUCET_KEYS} (see ibex faucet --help)`,
    )
  }
  if (config.network === 'mainnet' && config.genesisFile === undefined) {
    throw new ConfigError(
      'ibex faucet serves testnet and dev chains only: set network = "testnet" (or "dev") in the config',
    )
  }
  if (f.keyFile === undefined)
    throw new ConfigError("ibex faucet needs [faucet] key_file (the faucet account's private key, hex)")
  let keyText: string
  try {
    keyText = readFileSync(f.keyFile, 'utf8')
  } catch (err) {
    throw new ConfigError(
      `[faucet] key_file ${f.keyFile}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    )
  }
  const privateKey = parsePrivateKeyHex(keyText, `[faucet] key_file ${f.keyFile}`)
  mkdirSync(config.datadir, { recursive: true })
  const [{ Faucet, formatCoins, formatWait }, { createLogger }] = await Promise.all([
    import('../../ops/faucet/index.js'),
    import('../../log.js'),
  ])
  const log = createLogger(config.logLevel, config.logFormat)
  const running = await new Faucet({ config, privateKey, log }).start()
  io.out(`ibex faucet: chain id ${running.chainId}, sending from ${running.address}`)
  io.out(
    `Amount:   ${formatCoins(f.amountWei)} ${config.chain.tokenSymbol} per request, once per address and IP every ${formatWait(f.cooldownMs)}`,
  )
  io.out(`Budget:   ${formatCoins(f.dailyBudgetWei)} ${config.chain.tokenSymbol} per UTC day`)
  io.out(`Node:     ${f.rpcUrl}`)
  io.out(`Listening on ${running.url}`)
  await new Promise<void>((resolve) => {
    const off = io.onSignal((signal) => {
      off()
      io.err(`ibex: ${signal} received, stopping the faucet`)
      running.stop().then(resolve, resolve)
    })
  })
  return 0
}
