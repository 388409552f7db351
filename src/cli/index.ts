/**
 * The `ibex` command (bin/ibex.js imports the built copy of this file).
 *
 *   ibex start | init | import | export | genesis | help | version
 *
 * The CLI only parses flags into IbexConfig (src/config) and calls the node (src/node.ts); see
 * run.ts for exit codes and commands/ for each command.
 */
import { runCli } from './run.js'

const code = await runCli(process.argv.slice(2))
process.exit(code)
