/**
 * loadConfig turns the command line (and the TOML file it names) into `{command, config, extra}`.
 *
 *   argv ──▶ command + raw flags ──▶ network (flag > file > default) ──▶ defaultConfig(network)
 *        ──▶ apply TOML values ──▶ apply flags ──▶ checks across settings ──▶ IbexConfig
 *
 * Every value goes through the parsers of src/config/values.ts; anything not accepted throws a
 * ConfigError whose message is one line naming the flag or key and what is accepted. Nothing is
 * corrected silently. Paths in the file resolve against the file's directory, flag paths against
 * the working directory.
 */
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

import { TomlError, parse as parseToml } from 'smol-toml'

import { defaultConfig, sectionDefaults } from './defaults.js'
import { ConfigError, ValueProblem } from './errors.js'
import { setAt } from './kinds.js'
import { DEFAULT_NETWORK, settleGenesisDefaults } from './presets.js'
import {
  COMMANDS,
  COMMAND_FLAGS,
  type ApplyContext,
  type Command,
  type CommandFlagDef,
  type Prefund,
  SETTINGS,
  type TokenSpec,
  type Setting,
  tomlKeyName,
} from './settings.js'
import type { IbexConfig, NetworkName } from './types.js'
import { describeValue } from './values.js'

export { ConfigError } from './errors.js'
export type { Command } from './settings.js'

/** What a command gets besides the config: its positional arguments and command-only flags. */
export interface CommandExtra {
  /** Positional arguments after the command. */
  args: string[]
  /** `help TOPIC` / `TOPIC --help`: the command to explain. */
  topic?: Command
  /** import / export: the RLP file. */
  file?: string
  /** export: first and last block (inclusive). */
  first?: bigint
  last?: bigint
  /** genesis: number of validator keys to make. */
  validators?: number
  /** genesis: validator addresses to use instead of new keys. */
  addresses?: string[]
  /** genesis: output directory. */
  out?: string
  /** genesis: chain id overriding the network preset's. */
  chainId?: number
  /** genesis: full nodes laid out after the validators. */
  fullNodes?: number
  /** genesis: JSON-RPC port of node 1 (node i: +i-1). */
  httpBasePort?: number
  /** genesis: p2p port of node 1 (node i: +i-1). */
  p2pBasePort?: number
  /** genesis: accounts funded in the genesis. */
  prefund?: Prefund[]
  /** checkpoint: the subcommand. */
  checkpointAction?: 'deploy' | 'status'
  /** checkpoint deploy: the deployer's key file. */
  key?: string
  /** checkpoint: a child-chain node's JSON-RPC URL. */
  childRpc?: string
  /** checkpoint deploy: node configs (or directories of them) to write the addresses into. */
  writeConfig?: string[]
  /** checkpoint deploy: a token pair to deploy and map. */
  token?: TokenSpec
  /** checkpoint deploy --token: the child-chain deployer's key file. */
  childKey?: string
}

export interface LoadedConfig {
  command: Command
  config: IbexConfig
  extra: CommandExtra
  /** TOML keys set by a flag or the config file (`network`, `jsonrpc.port`): what the user asked for. */
  explicit: ReadonlySet<string>
  /** The config file read (--config, else $IBEX_CONFIG), if any. */
  configFile?: string
}

/** Environment variables read: IBEX_CONFIG (config file when --config is not given). */
export type LoadEnv = Record<string, string | undefined>

const NODE_COMMANDS: readonly Command[] = ['start', 'init', 'import', 'export', 'genesis', 'faucet', 'chain-info', 'checkpoint']
const FLAG_SETTINGS = new Map(SETTINGS.filter((s) => s.flag !== undefined).map((s) => [s.flag as string, s]))
const COMMAND_FLAG_DEFS = new Map(COMMAND_FLAGS.map((f) => [f.flag, f]))

interface RawFlag {
  name: string
  raw: string
}

/** loadConfig parses `argv` (without `node` and the script: `['start', '--network', 'dev']`). */
export function loadConfig(argv: string[], env: LoadEnv = process.env): LoadedConfig {
  const [first, ...rest] = argv
  const command = commandOf(first)
  const extra: CommandExtra = { args: [] }

  if (command === 'version') {
    if (rest.length > 0) throw new ConfigError(`unexpected argument ${JSON.stringify(rest[0])} for ibex version`)
    return { command, config: defaultConfig(DEFAULT_NETWORK), extra, explicit: new Set() }
  }
  if (command === 'help' || rest.includes('--help') || rest.includes('-h')) {
    const topic = command === 'help' ? rest.find((a) => !a.startsWith('-')) : command
    if (topic !== undefined) {
      if (!(COMMANDS as readonly string[]).includes(topic)) throw unknownCommand(topic)
      extra.topic = topic as Command
    }
    return { command: 'help', config: defaultConfig(DEFAULT_NETWORK), extra, explicit: new Set() }
  }

  const { flags, positionals } = scanArgs(command, rest)
  extra.args = positionals
  const flagValue = (name: string) => flags.find((f) => f.name === name)?.raw

  const configFlag = flagValue('config')
  if (configFlag !== undefined) parseFlagValue(FLAG_SETTINGS.get('config') as Setting, configFlag)
  const configFile = configFlag ?? (env.IBEX_CONFIG === '' ? undefined : env.IBEX_CONFIG)
  const fileEntries = configFile === undefined ? [] : readConfigFile(configFile)

  // The network decides the defaults, so it is settled first: flag > file > default.
  const networkFlag = flagValue('network')
  const networkEntry = fileEntries.find((e) => e.def.key === 'network')
  let network: NetworkName = DEFAULT_NETWORK
  if (networkEntry !== undefined) network = parseFileValue(networkEntry) as NetworkName
  if (networkFlag !== undefined)
    network = parseFlagValue(FLAG_SETTINGS.get('network') as Setting, networkFlag) as NetworkName

  const config = defaultConfig(network)
  const explicit = new Set<string>()
  for (const entry of fileEntries) {
    const base = dirname(resolve(entry.file))
    apply(config, entry.def, parseFileValue(entry), { resolvePath: (p) => resolve(base, p) })
    explicit.add(entry.def.key as string)
  }
  const fromCwd: ApplyContext = { resolvePath: (p) => p }
  for (const flag of flags) {
    const def = FLAG_SETTINGS.get(flag.name)
    if (def !== undefined) {
      apply(config, def, parseFlagValue(def, flag.raw), fromCwd)
      if (def.key !== undefined) explicit.add(def.key)
    } else {
      const commandFlag = COMMAND_FLAG_DEFS.get(flag.name) as CommandFlagDef
      setCommandFlag(extra, flag.name, parseFlagValue(commandFlag, flag.raw))
    }
  }
  settleGenesisDefaults(config, explicit)

  checkCommandArgs(command, extra)
  return { command, config, extra, explicit, configFile }
}

function commandOf(first: string | undefined): Command {
  if (first === undefined || first === '--help' || first === '-h') return 'help'
  if (first === '--version') return 'version'
  if ((COMMANDS as readonly string[]).includes(first)) return first as Command
  if (first.startsWith('-')) {
    throw new ConfigError(`missing command before ${first}: ibex <${COMMANDS.join('|')}> [flags] (see ibex --help)`)
  }
  throw unknownCommand(first)
}

function unknownCommand(name: string): ConfigError {
  return new ConfigError(`unknown command ${JSON.stringify(name)} (accepted: ${COMMANDS.join(', ')})`)
}

/** flagsFor lists the flag names a command accepts. */
export function flagsFor(command: Command): string[] {
  if (!NODE_COMMANDS.includes(command)) return []
  return [...FLAG_SETTINGS.keys(), ...COMMAND_FLAGS.filter((f) => f.commands.includes(command)).map((f) => f.flag)]
}

function isBooleanFlag(name: string): boolean {
  const def = FLAG_SETTINGS.get(name)
  return def !== undefined && def.kind.metavar === undefined
}

/** apply writes a parsed value where its row says; a section absent by default (p2p) starts from its defaults. */
function apply(config: IbexConfig, def: Setting, value: unknown, ctx: ApplyContext): void {
  if (def.to === undefined) return
  const resolved = def.kind.resolves === true ? ctx.resolvePath(value as string) : value
  setAt(config, def.to, resolved, (section) => sectionDefaults(section, config.network))
}

function scanArgs(command: Command, args: string[]): { flags: RawFlag[]; positionals: string[] } {
  const accepted = new Set(flagsFor(command))
  const flags: RawFlag[] = []
  const positionals: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === '--') {
      positionals.push(...args.slice(i + 1))
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.startsWith('--') ? arg.slice(2, eq === -1 ? undefined : eq) : arg
    if (!arg.startsWith('--') || !accepted.has(name))
      throw unknownFlag(arg.slice(0, eq === -1 ? undefined : eq), command, accepted)
    let raw: string
    if (eq !== -1) raw = arg.slice(eq + 1)
    else if (isBooleanFlag(name)) raw = 'true'
    else {
      const next = args[i + 1]
      if (next === undefined || next.startsWith('--'))
        throw new ConfigError(`missing value for --${name} (${describeFlag(name)})`)
      raw = next
      i++
    }
    if (flags.some((f) => f.name === name) && COMMAND_FLAG_DEFS.get(name)?.repeatable !== true)
      throw new ConfigError(`flag --${name} given more than once`)
    flags.push({ name, raw })
  }
  return { flags, positionals }
}

function describeFlag(name: string): string {
  const setting = FLAG_SETTINGS.get(name)
  const def =
    setting === undefined ? COMMAND_FLAG_DEFS.get(name) : { metavar: setting.kind.metavar, help: setting.help }
  return `expected ${def?.metavar ?? 'a value'}: ${def?.help ?? ''}`
}

function unknownFlag(flag: string, command: Command, accepted: Set<string>): ConfigError {
  const name = flag.replace(/^-+/, '')
  if (COMMAND_FLAG_DEFS.has(name)) {
    const owners = (COMMAND_FLAG_DEFS.get(name) as CommandFlagDef).commands.join(', ')
    return new ConfigError(`flag ${flag} is not accepted by ibex ${command} (only by: ${owners})`)
  }
  let best: string | undefined
  let bestDistance = Math.min(2, Math.floor(name.length / 3)) + 1
  for (const candidate of accepted) {
    const d = editDistance(name, candidate)
    if (d < bestDistance) [best, bestDistance] = [candidate, d]
  }
  return new ConfigError(
    `unknown flag ${flag}${best === undefined ? '' : ` (did you mean --${best}?)`}; see ibex ${command} --help`,
  )
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(
        (prev[j] as number) + 1,
        (cur[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
    }
    prev = cur
  }
  return prev[b.length] as number
}

function parseFlagValue(def: Setting | CommandFlagDef, raw: string): unknown {
  try {
    return 'kind' in def ? def.kind.parse(raw) : def.parse(raw)
  } catch (err) {
    if (!(err instanceof ValueProblem)) throw err
    throw new ConfigError(`invalid --${def.flag} ${JSON.stringify(raw)}: ${err.message}`)
  }
}

interface FileEntry {
  file: string
  def: Setting
  raw: unknown
}

function parseFileValue(entry: FileEntry): unknown {
  try {
    return entry.def.kind.parse(entry.raw)
  } catch (err) {
    if (!(err instanceof ValueProblem)) throw err
    const got = err.kind === 'expected' ? `, got ${describeValue(entry.raw)}` : ''
    throw new ConfigError(`${entry.file}: ${tomlKeyName(entry.def.key as string)}: ${err.message}${got}`)
  }
}

/** A row's TOML place: `['', 'network']`, `['jsonrpc', 'port']`. */
function placeOf(s: Setting): [section: string, name: string] {
  const key = s.key as string
  const dot = key.indexOf('.')
  return dot === -1 ? ['', key] : [key.slice(0, dot), key.slice(dot + 1)]
}
const TOML_SETTINGS = SETTINGS.filter((s) => s.key !== undefined)
const SECTIONS = [...new Set(TOML_SETTINGS.map((s) => placeOf(s)[0]).filter((s) => s !== ''))]

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
}

/** readConfigFile reads and checks the TOML file's keys; values are parsed later, in order. */
export function readConfigFile(file: string): FileEntry[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new ConfigError(
      `${file}: cannot read config file (${code === 'ENOENT' ? 'not found' : (code ?? (err as Error).message)})`,
    )
  }
  let table: Record<string, unknown>
  try {
    table = parseToml(text, { integersAsBigInt: true })
  } catch (err) {
    if (!(err instanceof TomlError)) throw err
    const reason = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '')
    throw new ConfigError(`${file}: invalid TOML at line ${err.line}, column ${err.column}: ${reason}`)
  }
  const entries: FileEntry[] = []
  const keysOf = (section: string) => TOML_SETTINGS.filter((s) => placeOf(s)[0] === section)
  const take = (section: string, values: Record<string, unknown>) => {
    for (const [key, raw] of Object.entries(values)) {
      if (section === '' && SECTIONS.includes(key)) {
        if (!isTable(raw))
          throw new ConfigError(`${file}: ${key}: expected a section [${key}], got ${describeValue(raw)}`)
        take(key, raw)
        continue
      }
      const def = keysOf(section).find((s) => placeOf(s)[1] === key)
      if (def === undefined) {
        const accepted = keysOf(section).map((s) => placeOf(s)[1])
        if (section === '') accepted.push(...SECTIONS.map((s) => `[${s}]`))
        if (section === '' && isTable(raw))
          throw new ConfigError(
            `${file}: unknown section [${key}] (accepted: ${SECTIONS.map((s) => `[${s}]`).join(', ')})`,
          )
        const where = section === '' ? '' : ` in [${section}]`
        throw new ConfigError(`${file}: unknown key ${JSON.stringify(key)}${where} (accepted: ${accepted.join(', ')})`)
      }
      entries.push({ file, def, raw })
    }
  }
  take('', table)
  return entries
}

function setCommandFlag(extra: CommandExtra, name: string, value: unknown): void {
  if (name === 'validators') extra.validators = value as number
  else if (name === 'addresses') extra.addresses = value as string[]
  else if (name === 'out') extra.out = value as string
  else if (name === 'chain-id') extra.chainId = value as number
  else if (name === 'full-nodes') extra.fullNodes = value as number
  else if (name === 'http-base-port') extra.httpBasePort = value as number
  else if (name === 'p2p-base-port') extra.p2pBasePort = value as number
  else if (name === 'prefund') extra.prefund = [...(extra.prefund ?? []), value as Prefund]
  else if (name === 'key') extra.key = value as string
  else if (name === 'child-rpc') extra.childRpc = value as string
  else if (name === 'write-config') extra.writeConfig = [...(extra.writeConfig ?? []), value as string]
  else if (name === 'token') extra.token = value as TokenSpec
  else if (name === 'child-key') extra.childKey = value as string
}

function parseBlockNumber(raw: string, what: string): bigint {
  if (/^[0-9]+$/.test(raw) || /^0x[0-9a-fA-F]+$/.test(raw)) return BigInt(raw)
  throw new ConfigError(`invalid ${what} block ${JSON.stringify(raw)}: expected a block number (decimal or 0x hex)`)
}

function checkCommandArgs(command: Command, extra: CommandExtra): void {
  const { args } = extra
  const tooMany = (max: number) => {
    if (args.length > max) throw new ConfigError(`unexpected argument ${JSON.stringify(args[max])} for ibex ${command}`)
  }
  if (
    command === 'start' ||
    command === 'init' ||
    command === 'genesis' ||
    command === 'faucet' ||
    command === 'chain-info'
  )
    tooMany(0)
  if (command === 'import' || command === 'export') {
    if (args.length === 0)
      throw new ConfigError(
        `missing FILE: ibex ${command} --datadir DIR FILE.rlp${command === 'export' ? ' [FIRST [LAST]]' : ''}`,
      )
    extra.file = args[0]
  }
  if (command === 'import') tooMany(1)
  if (command === 'checkpoint') {
    const action = args[0]
    if (action !== 'deploy' && action !== 'status')
      throw new ConfigError(
        `ibex checkpoint needs an action: deploy (the base-chain contracts) or status (last checkpoint, lag, uptime)${action === undefined ? '' : `, got ${JSON.stringify(action)}`}`,
      )
    tooMany(1)
    extra.checkpointAction = action
    if (action === 'status' && (extra.key !== undefined || extra.writeConfig !== undefined || extra.token !== undefined))
      throw new ConfigError('ibex checkpoint status takes no --key, --token or --write-config (they are for deploy)')
  }
  if (command === 'export') {
    tooMany(3)
    if (args[1] !== undefined) extra.first = parseBlockNumber(args[1], 'FIRST')
    if (args[2] !== undefined) extra.last = parseBlockNumber(args[2], 'LAST')
    if (extra.first !== undefined && extra.last !== undefined && extra.last < extra.first) {
      throw new ConfigError(`invalid block range ${extra.first}..${extra.last}: LAST must not be below FIRST`)
    }
  }
  if (command === 'genesis') {
    if ((extra.validators === undefined) === (extra.addresses === undefined)) {
      throw new ConfigError('ibex genesis needs exactly one of --validators N or --addresses LIST')
    }
    if (extra.out === undefined) throw new ConfigError('ibex genesis needs --out DIR')
    if (extra.addresses !== undefined && (extra.fullNodes ?? 0) > 0) {
      throw new ConfigError(
        'ibex genesis --full-nodes needs --validators N (node directories are written with their keys)',
      )
    }
  }
}
