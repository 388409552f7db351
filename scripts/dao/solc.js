/**
 * Compiling the contracts with solc-js: the standard-JSON input is built from the sources
 * (every imported file inlined, so the input alone reproduces the bytecode and explorers can
 * verify with it), compiled offline, and reduced to one artifact per deployable contract.
 *
 * Two compilation units: the DAO (contracts/dao, contracts/safe; Prague, our chain's rules) and
 * the checkpoint contracts (contracts/checkpoint: base-chain CheckpointManager and ExitVault, the
 * child-chain token; Cancun, so that they deploy on any base chain past Dencun). Each has its own
 * input file, so neither's bytecode or verification input depends on the other's sources.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, posix, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** REPO_ROOT: scripts/dao/ → ../.. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const CONTRACTS_DIR = join(REPO_ROOT, 'contracts')
/** SOLC_VERSION: the compiler every artifact is built with (package.json pins solc 0.8.30). */
export const SOLC_VERSION = '0.8.30+commit.73712a01'
/** EVM_VERSION: our chain runs Prague from block 0 (DESIGN "Chain rules"). */
export const EVM_VERSION = 'prague'
/** OPTIMIZER_RUNS: the usual 200; every contract stays below the 24 KiB code limit with it. */
export const OPTIMIZER_RUNS = 200
/** MAX_CODE_BYTES: EIP-170's limit on deployed code. */
export const MAX_CODE_BYTES = 24_576

/** The directories under contracts/ compiled into the DAO build (Counter.sol belongs to the e2e tests). */
const SOURCE_DIRS = ['dao', 'safe']
/** CHECKPOINT_SOURCE_DIRS: the directories of the checkpoint build (issue 20). */
export const CHECKPOINT_SOURCE_DIRS = ['checkpoint']
/**
 * CHECKPOINT_EVM_VERSION: the checkpoint contracts run on the base chain, any EVM chain the
 * operator picks; Cancun is what Ethereum and the common L2s and sidechains all run, and the
 * contracts use nothing newer. ChildToken runs on our Prague chain, which executes Cancun code.
 */
export const CHECKPOINT_EVM_VERSION = 'cancun'

/** DEPLOYABLE: contract name → source unit, the artifacts and ABIs we publish. */
export const DEPLOYABLE = {
  KycRegistry: 'contracts/dao/KycRegistry.sol',
  ValidatorNFT: 'contracts/dao/ValidatorNFT.sol',
  ValidatorDAO: 'contracts/dao/ValidatorDAO.sol',
  DaoGovernor: 'contracts/dao/DaoGovernor.sol',
  DaoTimelock: 'contracts/dao/DaoTimelock.sol',
  RevenuePool: 'contracts/dao/RevenuePool.sol',
  DisputeResolution: 'contracts/dao/DisputeResolution.sol',
  DaoLens: 'contracts/dao/DaoLens.sol',
  ValidatorSigners: 'contracts/dao/ValidatorSigners.sol',
  SafeL2: '@safe-global/safe-contracts/contracts/SafeL2.sol',
  SafeProxy: '@safe-global/safe-contracts/contracts/proxies/SafeProxy.sol',
  SafeProxyFactory: '@safe-global/safe-contracts/contracts/proxies/SafeProxyFactory.sol',
  CompatibilityFallbackHandler: '@safe-global/safe-contracts/contracts/handler/CompatibilityFallbackHandler.sol',
  MultiSendCallOnly: '@safe-global/safe-contracts/contracts/libraries/MultiSendCallOnly.sol',
}

/** CHECKPOINT_DEPLOYABLE: contract name → source unit of the checkpoint build (not in any genesis). */
export const CHECKPOINT_DEPLOYABLE = {
  CheckpointManager: 'contracts/checkpoint/CheckpointManager.sol',
  ExitVault: 'contracts/checkpoint/ExitVault.sol',
  ChildToken: 'contracts/checkpoint/ChildToken.sol',
  BaseToken: 'contracts/checkpoint/BaseToken.sol',
}

const IMPORT_RE = /^\s*import\s+(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm

/** loadSolc returns solc-js and checks it is the pinned version. */
export function loadSolc() {
  const solc = createRequire(import.meta.url)('solc')
  if (solc.version() !== `${SOLC_VERSION}.Emscripten.clang`) {
    throw new Error(`solc ${solc.version()} found, ${SOLC_VERSION} expected (npm ci installs the pinned one)`)
  }
  return solc
}

function readUnit(unit) {
  const path = unit.startsWith('contracts/') ? join(REPO_ROOT, unit) : join(REPO_ROOT, 'node_modules', unit)
  return readFileSync(path, 'utf8')
}

function listSol(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...listSol(path))
    else if (entry.name.endsWith('.sol')) out.push(path)
  }
  return out
}

/**
 * standardInput builds the solc standard-JSON input: our sources under `sourceDirs` and everything
 * they import, inlined. The defaults are the DAO build's.
 */
export function standardInput({ sourceDirs = SOURCE_DIRS, evmVersion = EVM_VERSION } = {}) {
  const roots = sourceDirs
    .flatMap((d) => listSol(join(CONTRACTS_DIR, d)))
    .map((p) => relative(REPO_ROOT, p).split('\\').join('/'))
    .sort()
  const sources = {}
  const queue = [...roots]
  while (queue.length > 0) {
    const unit = queue.shift()
    if (sources[unit]) continue
    const content = readUnit(unit)
    sources[unit] = { content }
    for (const m of content.matchAll(IMPORT_RE)) {
      const target = m[1].startsWith('.') ? posix.normalize(posix.join(posix.dirname(unit), m[1])) : m[1]
      if (!sources[target]) queue.push(target)
    }
  }
  const sorted = {}
  for (const unit of Object.keys(sources).sort()) sorted[unit] = sources[unit]
  return {
    language: 'Solidity',
    sources: sorted,
    settings: {
      evmVersion,
      optimizer: { enabled: true, runs: OPTIMIZER_RUNS },
      metadata: { bytecodeHash: 'ipfs' },
      outputSelection: {
        '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  }
}

/** checkpointInput: the standard-JSON input of the checkpoint build. */
export function checkpointInput() {
  return standardInput({ sourceDirs: CHECKPOINT_SOURCE_DIRS, evmVersion: CHECKPOINT_EVM_VERSION })
}

/**
 * compile runs solc on `input` and returns { artifacts: name → artifact, warnings } for the
 * contracts of `deployable` (default: the DAO build's). Throws on errors.
 */
export function compile(input = standardInput(), deployable = DEPLOYABLE) {
  const solc = loadSolc()
  const output = JSON.parse(solc.compile(JSON.stringify(input)))
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  const warnings = (output.errors ?? [])
    .filter((e) => e.severity !== 'error' && e.sourceLocation?.file?.startsWith('contracts/'))
    .map((e) => e.formattedMessage)
  const artifacts = {}
  for (const [name, sourceName] of Object.entries(deployable)) {
    const c = output.contracts?.[sourceName]?.[name]
    if (!c) throw new Error(`${name} missing from the solc output (${sourceName})`)
    const artifact = {
      contractName: name,
      sourceName,
      compiler: SOLC_VERSION,
      evmVersion: input.settings.evmVersion,
      optimizerRuns: OPTIMIZER_RUNS,
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    }
    const size = (artifact.deployedBytecode.length - 2) / 2
    if (size > MAX_CODE_BYTES) throw new Error(`${name}: ${size} bytes of code, above the ${MAX_CODE_BYTES}-byte limit`)
    artifacts[name] = artifact
  }
  return { artifacts, warnings }
}
