/**
 * `ibex start`: run the node until SIGINT/SIGTERM, then stop it cleanly (a second signal exits
 * at once). On the dev network the funded accounts and their keys are listed, as anvil does.
 */
import { DEV_DERIVATION_PATH, DEV_MNEMONIC, devAccounts } from '../../config/accounts.js'
import { DEV_ACCOUNT_BALANCE_WEI, DEV_ACCOUNT_COUNT, NETWORK_CHAIN_IDS } from '../../config/defaults.js'
import type { IbexConfig } from '../../config/types.js'
import type { CliIo } from '../io.js'
import type { ChainRequest } from '../datadir.js'
import type { NodeApi, RunningNode } from '../node-api.js'

/** Exit code when a second signal cuts shutdown short (128 + SIGINT). */
export const FORCED_EXIT_CODE = 130

/** formatStartBanner: what `ibex start` prints once the node runs. */
export function formatStartBanner(config: IbexConfig, node: RunningNode, version: string): string[] {
  // without --network/--genesis a datadir runs the chain it holds, which may not be the default preset's
  const preset = config.genesisFile === undefined && node.chainId === BigInt(NETWORK_CHAIN_IDS[config.network])
  const network =
    config.genesisFile !== undefined
      ? `genesis ${config.genesisFile}`
      : preset
        ? `${config.network} network`
        : `the chain stored in ${config.datadir}`
  const lines = [
    `ibex ${version}: ${network}, chain id ${node.chainId}`,
    `JSON-RPC:       ${node.url === '' ? 'disabled' : `${node.url} (${config.jsonrpc.api.join(', ')})`}`,
    `Validator:      ${node.validator ?? 'none (this node follows)'}`,
    `Data directory: ${config.datadir}`,
  ]
  if (node.metricsUrl !== undefined) lines.push(`Metrics:        ${node.metricsUrl}`)
  if (config.network === 'dev' && preset) {
    const accounts = devAccounts(DEV_ACCOUNT_COUNT)
    const coins = (DEV_ACCOUNT_BALANCE_WEI / 10n ** 18n).toLocaleString('en-US')
    const title = `Available accounts (${coins} ${config.chain.tokenSymbol} each)`
    lines.push('', title, '='.repeat(title.length))
    for (const [i, a] of accounts.entries()) lines.push(`(${i}) ${a.address}`)
    lines.push('', 'Private keys', '============')
    for (const [i, a] of accounts.entries()) lines.push(`(${i}) ${a.privateKey}`)
    lines.push('', `Mnemonic:        ${DEV_MNEMONIC}`, `Derivation path: ${DEV_DERIVATION_PATH}/<i>`)
  }
  if (node.url !== '') lines.push('', `Listening on ${node.url}`)
  return lines
}

export async function runStart(
  config: IbexConfig,
  api: NodeApi,
  io: CliIo,
  version: string,
  request?: ChainRequest,
): Promise<number> {
  const node = await api.startNode(config, request)
  for (const line of formatStartBanner(config, node, version)) io.out(line)
  await new Promise<void>((resolve, reject) => {
    let stopping = false
    const off = io.onSignal((signal) => {
      if (stopping) {
        io.err(`ibex: ${signal} again, exiting without a clean stop`)
        io.exit(FORCED_EXIT_CODE)
        return
      }
      stopping = true
      io.err(`ibex: ${signal} received, stopping (send it again to exit at once)`)
      node.stop().then(
        () => {
          off()
          resolve()
        },
        (err: unknown) => {
          off()
          reject(err)
        },
      )
    })
  })
  return 0
}
