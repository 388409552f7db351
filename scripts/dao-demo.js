#!/usr/bin/env node
/**
 * `node scripts/dao-demo.js [--rpc URL]`: plays the Validator DAO scenario (scripts/dao/demo.js)
 * against a fresh `ibex start --network dev` node (default http://127.0.0.1:8545) with the
 * test-mnemonic keys, printing every step.
 */
import { Chain } from './dao/client.js'
import { runDemo } from './dao/demo.js'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback
}

const chain = new Chain(arg('--rpc', 'http://127.0.0.1:8545'))
runDemo({ chain, log: (line) => console.log(line) })
  .then(() => console.log('done'))
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  })
