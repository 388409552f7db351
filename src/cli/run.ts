/**
 * runCli: argv → loadConfig → the command → exit code. ConfigErrors print one line
 * `ibex: <message>` to stderr and give 2; any other error gives 1 (stack shown at log level
 * debug/trace).
 */
import { ConfigError, loadConfig } from '../config/load.js'
import { runExport, runImport } from './commands/chain-io.js'
import { runCheckpoint } from './commands/checkpoint.js'
import { runGenesis } from './commands/genesis.js'
import { formatHelp, ibexVersion } from './commands/help.js'
import { runInit } from './commands/init.js'
import { runChainInfo, runFaucet } from './commands/ops.js'
import { runStart } from './commands/start.js'
import { type CliIo, processIo } from './io.js'
import { type NodeApi, loadNodeApi } from './node-api.js'

/** Exit code of a usage or configuration error. */
export const EXIT_USAGE = 2
/** Exit code of an unexpected failure. */
export const EXIT_FAILURE = 1

export async function runCli(argv: string[], io: CliIo = processIo, nodeApi?: NodeApi): Promise<number> {
  let verbose = false
  try {
    const { command, config, extra, explicit, configFile } = loadConfig(argv)
    // --network or --genesis names the chain: a datadir holding another one is refused (datadir.ts)
    const request = { explicit: explicit.has('network') || config.genesisFile !== undefined }
    verbose = config.logLevel === 'debug' || config.logLevel === 'trace'
    switch (command) {
      case 'help':
        io.out(formatHelp(extra.topic))
        return 0
      case 'version':
        io.out(`ibex ${ibexVersion()}`)
        return 0
      case 'genesis':
        return await runGenesis(config, extra, io)
      case 'start':
        return await runStart(config, nodeApi ?? (await loadNodeApi()), io, ibexVersion(), request)
      case 'init':
        return await runInit(config, nodeApi ?? (await loadNodeApi()), io, request)
      case 'import':
        return await runImport(config, extra, nodeApi ?? (await loadNodeApi()), io, request)
      case 'export':
        return await runExport(config, extra, nodeApi ?? (await loadNodeApi()), io)
      case 'faucet':
        return await runFaucet(config, io, configFile)
      case 'chain-info':
        return await runChainInfo(config, io)
      case 'checkpoint':
        return await runCheckpoint(config, extra, io)
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`ibex: ${err.message}`)
      return EXIT_USAGE
    }
    const error = err instanceof Error ? err : new Error(String(err))
    io.err(`ibex: ${error.message.split('\n')[0]}`)
    if (verbose && error.stack !== undefined) io.err(error.stack)
    return EXIT_FAILURE
  }
}
