/**
 * Compiles a contract from `contracts/` with solc-js (standard JSON, offline) at test time.
 * Results are cached per process: every test file that needs Counter pays for one compile.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = dirname(fileURLToPath(import.meta.url))
/** Repo root: test/helpers/ → ../.., or dist/test/helpers/ → ../../.. when benchmarks run the compiled copy. */
export const REPO_ROOT = resolve(HERE, '..', '..', ...(HERE.includes(`${sep}dist${sep}test${sep}`) ? ['..'] : []))
export const CONTRACTS_DIR = join(REPO_ROOT, 'contracts')

/** EVM version the chain runs (DESIGN: Prague from block 0). */
export const EVM_VERSION = 'prague'

// biome-ignore lint/suspicious/noExplicitAny: ABI items are plain JSON
export type AbiItem = Record<string, any>

export interface CompiledContract {
  name: string
  abi: AbiItem[]
  /** Creation bytecode, 0x-prefixed. */
  bytecode: `0x${string}`
  /** Runtime bytecode, 0x-prefixed (what eth_getCode returns after deployment). */
  deployedBytecode: `0x${string}`
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[]
  contracts?: Record<
    string,
    Record<string, { abi: AbiItem[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >
}

interface Solc {
  compile(input: string): string
  version(): string
}

const cache = new Map<string, Record<string, CompiledContract>>()

function loadSolc(): Solc {
  const require = createRequire(import.meta.url)
  return require('solc') as Solc
}

/** Compiles `contracts/<file>` and returns every contract it defines, keyed by name. */
export function compileFile(file: string): Record<string, CompiledContract> {
  const hit = cache.get(file)
  if (hit) return hit
  const source = readFileSync(join(CONTRACTS_DIR, file), 'utf8')
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  }
  const solc = loadSolc()
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) {
    throw new Error(`solc ${solc.version()} failed on ${file}:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  }
  const out: Record<string, CompiledContract> = {}
  for (const [name, c] of Object.entries(output.contracts?.[file] ?? {})) {
    out[name] = {
      name,
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
    }
  }
  cache.set(file, out)
  return out
}

/** Compiles `contracts/<name>.sol` and returns the contract `name`. */
export function compileContract(name: string, file = `${name}.sol`): CompiledContract {
  const c = compileFile(file)[name]
  if (!c) throw new Error(`contract ${name} not found in contracts/${file}`)
  return c
}

/** Creation and runtime code of a benchmark contract. */
interface BenchCompiled {
  bytecode: string
  runtime: string
}

/** Compiles bench/seed/Bench.sol for Shanghai with solc-js. */
export function compileBench(): Record<'BenchToken' | 'Disperse', BenchCompiled> {
  const require = createRequire(import.meta.url)
  const solc = require('solc') as { compile(input: string): string }
  const content = readFileSync(join(REPO_ROOT, 'bench', 'seed', 'Bench.sol'), 'utf8')
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Bench.sol': { content } },
        settings: {
          evmVersion: 'shanghai',
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { '*': { '*': ['evm.bytecode.object', 'evm.deployedBytecode.object'] } },
        },
      }),
    ),
  )
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errors.length > 0) throw new Error(`Bench.sol: ${JSON.stringify(errors)}`)
  const pick = (name: string): BenchCompiled => {
    const c = out.contracts['Bench.sol'][name].evm
    return { bytecode: `0x${c.bytecode.object}`, runtime: `0x${c.deployedBytecode.object}` }
  }
  return { BenchToken: pick('BenchToken'), Disperse: pick('Disperse') }
}
