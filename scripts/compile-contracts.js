#!/usr/bin/env node
/**
 * `npm run contracts`: builds the Validator DAO and the checkpoint contracts from source and writes
 * everything derived from them.
 *
 *   contracts/dao/*.sol, contracts/safe/*.sol (+ imports from node_modules)
 *     ─▶ contracts/build/solc-input.json      solc standard-JSON input, sources inlined (explorer verification)
 *     ─▶ contracts/build/<Name>.json          abi, creation and runtime bytecode, compiler settings
 *     ─▶ contracts/abi/<Name>.json            the ABI alone
 *     ─▶ contracts/genesis/<network>.json     DAO state for the dev / testnet / mainnet genesis alloc
 *     ─▶ deploy/dao-addresses.json            contract name → address, per network preset
 *   contracts/checkpoint/**.sol (base chain: CheckpointManager, ExitVault, BaseToken; child: ChildToken)
 *     ─▶ contracts/build/checkpoint-solc-input.json, contracts/build/<Name>.json, contracts/abi/<Name>.json
 *        (deployed by the operator, in no genesis)
 *
 * `npm run contracts -- --check` rebuilds in memory and fails if any committed file differs
 * (the artifacts are reproducible from source with solc 0.8.30).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

import { buildDaoGenesis } from './dao/genesis.js'
import { CHECKPOINT_DEPLOYABLE, CONTRACTS_DIR, checkpointInput, compile, REPO_ROOT, standardInput } from './dao/solc.js'

const NETWORKS = ['dev', 'testnet', 'mainnet']

function json(value) {
  return `${JSON.stringify(value, null, 2)}\n`
}

/** buildAll returns path → file contents of everything this script writes. */
export async function buildAll(log = () => {}) {
  const files = new Map()
  const input = standardInput()
  files.set(join(CONTRACTS_DIR, 'build', 'solc-input.json'), json(input))
  const t0 = performance.now()
  const { artifacts, warnings } = compile(input)
  log(`compiled ${Object.keys(input.sources).length} sources in ${Math.round(performance.now() - t0)} ms`)
  for (const w of warnings) log(w)
  for (const [name, artifact] of Object.entries(artifacts)) {
    files.set(join(CONTRACTS_DIR, 'build', `${name}.json`), json(artifact))
    files.set(join(CONTRACTS_DIR, 'abi', `${name}.json`), json(artifact.abi))
    log(`  ${name.padEnd(30)} ${String((artifact.deployedBytecode.length - 2) / 2).padStart(6)} bytes`)
  }
  const checkpoint = checkpointInput()
  files.set(join(CONTRACTS_DIR, 'build', 'checkpoint-solc-input.json'), json(checkpoint))
  const t1 = performance.now()
  const built = compile(checkpoint, CHECKPOINT_DEPLOYABLE)
  log(
    `compiled ${Object.keys(checkpoint.sources).length} checkpoint sources in ${Math.round(performance.now() - t1)} ms`,
  )
  for (const w of built.warnings) log(w)
  for (const [name, artifact] of Object.entries(built.artifacts)) {
    if (artifacts[name]) throw new Error(`${name} is built twice (DAO and checkpoint builds)`)
    files.set(join(CONTRACTS_DIR, 'build', `${name}.json`), json(artifact))
    files.set(join(CONTRACTS_DIR, 'abi', `${name}.json`), json(artifact.abi))
    log(`  ${name.padEnd(30)} ${String((artifact.deployedBytecode.length - 2) / 2).padStart(6)} bytes`)
  }
  const addresses = {}
  for (const network of NETWORKS) {
    const genesis = await buildDaoGenesis(network, artifacts)
    files.set(join(CONTRACTS_DIR, 'genesis', `${network}.json`), json(genesis))
    addresses[network] = genesis.addresses
  }
  files.set(join(REPO_ROOT, 'deploy', 'dao-addresses.json'), json(addresses))
  return files
}

async function main() {
  const check = process.argv.includes('--check')
  const files = await buildAll((line) => console.log(line))
  const stale = []
  for (const [path, content] of files) {
    const rel = relative(REPO_ROOT, path)
    if (check) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== content) stale.push(rel)
      continue
    }
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, content)
  }
  if (check) {
    if (stale.length > 0) {
      console.error(`out of date (run npm run contracts): ${stale.join(', ')}`)
      process.exit(1)
    }
    console.log(`all ${files.size} generated files match the sources`)
  } else {
    console.log(`wrote ${files.size} files`)
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.stack : err)
    process.exit(1)
  })
}
