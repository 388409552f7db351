/**
 * `ibex help [COMMAND]`, `ibex version`, and the README's config table — all generated from the
 * settings table (src/config/settings.ts), the same one the parser uses. The defaults shown are
 * read from the configurations the loader really builds: mainnet's, then where testnet, dev or
 * --genesis differ (`200 (dev, --genesis: 0)`).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { defaultConfig, defaultValue } from '../../config/defaults.js'
import { packageRoot } from '../../config/genesis.js'
import { DescribedDefault, PresetDefault, getAt } from '../../config/kinds.js'
import { settleGenesisDefaults } from '../../config/presets.js'
import {
  COMMAND_FLAGS,
  type Command,
  OPTIONAL_SECTIONS,
  SETTINGS,
  type Setting,
  tomlKeyName,
} from '../../config/settings.js'
import type { IbexConfig, NetworkName } from '../../config/types.js'

interface CommandDoc {
  name: Command
  usage: string
  /** Shorter usage for the overview, when the full one is long. */
  synopsis?: string
  summary: string
}

const COMMAND_DOCS: readonly CommandDoc[] = [
  { name: 'start', usage: 'ibex start [FLAGS]', summary: 'run a node; an empty datadir is initialised first' },
  { name: 'init', usage: 'ibex init [FLAGS]', summary: 'initialise the datadir from --network or --genesis' },
  { name: 'import', usage: 'ibex import [FLAGS] FILE.rlp', summary: 'import blocks as `geth export` writes them' },
  {
    name: 'export',
    usage: 'ibex export [FLAGS] FILE.rlp [FIRST [LAST]]',
    summary: 'write blocks FIRST..LAST (default: all) as RLP',
  },
  {
    name: 'genesis',
    usage: 'ibex genesis (--validators N | --addresses LIST) --out DIR [FLAGS]',
    synopsis: 'ibex genesis --validators N --out DIR',
    summary: 'write validator keys and a genesis.json for an IBFT network',
  },
  {
    name: 'faucet',
    usage: 'ibex faucet --config FILE',
    summary: 'serve the testnet faucet ([faucet] in the config file)',
  },
  {
    name: 'chain-info',
    usage: 'ibex chain-info [--network NAME] [--config FILE]',
    synopsis: 'ibex chain-info --network NAME',
    summary: 'print the chain-registry entry and wallet (EIP-3085) parameters',
  },
  {
    name: 'checkpoint',
    usage:
      'ibex checkpoint deploy --checkpoint.base-rpc URL --key FILE [--config node.toml] [--child-rpc URL] [--write-config PATH]… | ibex checkpoint status [--config node.toml] [--child-rpc URL]',
    synopsis: 'ibex checkpoint deploy|status',
    summary: 'deploy the base-chain checkpoint contracts for a network, or show its checkpoints, lag and uptime',
  },
  { name: 'help', usage: 'ibex help [COMMAND]', summary: "show this help, or one command's" },
  { name: 'version', usage: 'ibex version', summary: 'print the version' },
]

/** ibexVersion reads the version from package.json. */
export function ibexVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string }
  return pkg.version ?? 'unknown'
}

function columns(rows: [string, string][], indent = '  '): string[] {
  const width = Math.max(...rows.map(([left]) => left.length))
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`.trimEnd())
}

const NETWORKS: readonly NetworkName[] = ['mainnet', 'testnet', 'dev']
let shownConfigs: [label: string, config: IbexConfig][] | undefined

/** The configurations defaults are shown from: mainnet's first, then those that may differ. */
function defaultColumns(): [label: string, config: IbexConfig][] {
  if (shownConfigs === undefined) {
    const genesis = { ...defaultConfig('mainnet'), genesisFile: 'genesis.json' }
    settleGenesisDefaults(genesis, new Set())
    shownConfigs = [...NETWORKS.map((n): [string, IbexConfig] => [n, defaultConfig(n)]), ['--genesis', genesis]]
  }
  return shownConfigs
}

/** describeDefault: a setting's default as people read it, e.g. `2s (dev: 0)`, `./data/<network> (--genesis: ./data/custom)`. */
export function describeDefault(setting: Setting): string {
  if (setting.default instanceof DescribedDefault) return setting.default.description
  const to = setting.to as string
  const section = OPTIONAL_SECTIONS.find((name) => to.startsWith(`${name}.`))
  if (section !== undefined) return `${section} off (${setting.kind.show(defaultValue(setting, 'mainnet'))} once on)`
  if (!(setting.default instanceof PresetDefault)) return setting.kind.show(setting.default)
  const shown = defaultColumns().map(([label, config]) => [label, setting.kind.show(getAt(config, to))] as const)
  let [[, main], ...rest] = shown
  // a value naming its network (./data/mainnet, ./data/dev) is shown once, as ./data/<network>
  const templates = shown.slice(0, NETWORKS.length).map(([label, text]) => text.replaceAll(label, '<network>'))
  if (templates[0] !== main && templates.every((t) => t === templates[0])) {
    main = templates[0] as string
    rest = rest.slice(NETWORKS.length - 1)
  }
  const differ = new Map<string, string[]>()
  for (const [label, text] of rest) if (text !== main) differ.set(text, [...(differ.get(text) ?? []), label])
  const notes = [...differ].map(([text, labels]) => `${labels.join(', ')}: ${text}`)
  return notes.length === 0 ? main : `${main} (${notes.join('; ')})`
}

function flagName(s: Setting): string {
  return `--${s.flag}${s.kind.metavar === undefined ? '' : ` ${s.kind.metavar}`}`
}

/** Global flags each command reads; `start` reads them all. A name missing from SETTINGS fails commandSettings' test. */
export const COMMAND_SETTINGS: Readonly<Record<Exclude<Command, 'start' | 'help' | 'version'>, readonly string[]>> = {
  init: ['network', 'genesis', 'datadir', 'config', 'block-time', 'validator-key', 'log-level', 'log-format'],
  import: ['network', 'genesis', 'datadir', 'config', 'block-time', 'validator-key', 'log-level', 'log-format'],
  export: ['network', 'genesis', 'datadir', 'config', 'log-level', 'log-format'],
  genesis: [
    'network',
    'genesis',
    'config',
    'block-time',
    'log-level',
    'ibft.round-timeout',
    'checkpoint.base-rpc',
    'checkpoint.base-chain-id',
    'checkpoint.interval',
    'checkpoint.max-blocks',
    'checkpoint.confirmations',
    'checkpoint.grace',
    'checkpoint.proposer-timeout',
    'checkpoint.uptime-window',
    'checkpoint.poll-interval',
  ],
  faucet: ['config', 'network', 'genesis', 'datadir', 'log-level', 'log-format'],
  'chain-info': ['config', 'network', 'genesis', 'http.addr', 'http.port'],
  checkpoint: [
    'config',
    'log-level',
    'http.port',
    'checkpoint.base-rpc',
    'checkpoint.base-chain-id',
    'checkpoint.manager',
    'checkpoint.max-blocks',
    'checkpoint.uptime-window',
  ],
}

/** File-only keys a command reads (shown in its help: they have no flag). */
const COMMAND_FILE_SECTIONS: Partial<Record<Command, readonly string[]>> = {
  faucet: ['faucet'],
  'chain-info': ['chain'],
}

/** commandSettings: the flag settings `command` reads (every flag for start, help and version). */
export function commandSettings(command?: Command): Setting[] {
  const flags = SETTINGS.filter((s) => s.flag !== undefined)
  if (command === undefined || !(command in COMMAND_SETTINGS)) return flags
  const names = COMMAND_SETTINGS[command as keyof typeof COMMAND_SETTINGS]
  return flags.filter((s) => names.includes(s.flag as string))
}

function flagRows(command?: Command): [string, string][] {
  return commandSettings(command).map((s) => [flagName(s), `${s.help} [default: ${describeDefault(s)}]`])
}

function fileKeyRows(command: Command): [string, string][] {
  const sections = COMMAND_FILE_SECTIONS[command] ?? []
  return SETTINGS.filter((s) => s.flag === undefined && sections.some((x) => s.key?.startsWith(`${x}.`))).map((s) => [
    tomlKeyName(s.key as string),
    `${s.help} [default: ${describeDefault(s)}]`,
  ])
}

function commandFlagRows(command: Command): [string, string][] {
  return COMMAND_FLAGS.filter((f) => f.commands.includes(command)).map((f) => [`--${f.flag} ${f.metavar}`, f.help])
}

const FOOTER = [
  'Flags are given as --flag value or --flag=value. Durations: 0, 2 (seconds), 1.5, 2s, 500ms.',
  'A TOML config file (--config FILE) sets the same things; flags override it (see README.md).',
]

/** formatHelp: the text of `ibex --help` (no topic) or `ibex help COMMAND`. */
export function formatHelp(topic?: Command): string {
  const lines: string[] = []
  if (topic === undefined || topic === 'help' || topic === 'version') {
    lines.push(`ibex ${ibexVersion()}: EVM node with Istanbul BFT finality`, '', 'Usage:')
    lines.push(...columns(COMMAND_DOCS.map((c) => [c.synopsis ?? c.usage, c.summary])))
    lines.push('', 'Flags of start, init, import, export, genesis, faucet, chain-info and checkpoint:', ...columns(flagRows()))
    lines.push('', 'Flags of genesis only:', ...columns(commandFlagRows('genesis')))
    lines.push('', 'Flags of checkpoint only:', ...columns(commandFlagRows('checkpoint')))
  } else {
    const doc = COMMAND_DOCS.find((c) => c.name === topic) as CommandDoc
    lines.push(`Usage: ${doc.usage}`, '', `${doc.summary[0]?.toUpperCase()}${doc.summary.slice(1)}.`, '', 'Flags:')
    lines.push(...columns([...commandFlagRows(topic), ...flagRows(topic)]))
    const fileKeys = fileKeyRows(topic)
    if (fileKeys.length > 0) lines.push('', 'Keys of the config file (no flags):', ...columns(fileKeys))
    if (topic !== 'start') lines.push('', 'Every flag and what start does with it: ibex --help')
  }
  lines.push('', ...FOOTER)
  return lines.join('\n')
}

/** formatConfigTable: the README's table of every setting — key, flag, default, meaning. */
export function formatConfigTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|')
  const rows = SETTINGS.map((s) => {
    const key = s.key === undefined ? '—' : `\`${tomlKeyName(s.key)}\``
    const flag = s.flag === undefined ? '—' : `\`${flagName(s)}\``
    return `| ${key} | ${flag} | \`${cell(describeDefault(s))}\` | ${cell(s.help)} |`
  })
  return ['| key | flag | default | meaning |', '|---|---|---|---|', ...rows].join('\n')
}

/** Opens the README's fenced `ibex --help` block, and the first line of its config table. */
const README_HELP_INTRO = '`ibex --help` prints'
const README_TABLE_HEAD = '| key | flag | default | meaning |'

/**
 * refreshReadme returns `readme` with its `ibex --help` block and config table replaced by the
 * generated ones (`npm run docs:config` writes it; run.test.ts fails while the README differs).
 */
export function refreshReadme(readme: string): string {
  const lines = readme.split('\n')
  const replace = (start: number, end: number, text: string) => lines.splice(start, end - start, ...text.split('\n'))
  const intro = lines.findIndex((l) => l.includes(README_HELP_INTRO))
  const open = lines.findIndex((l, i) => i > intro && l.startsWith('```'))
  const close = lines.findIndex((l, i) => i > open && l.startsWith('```'))
  if (intro === -1 || open === -1 || close === -1)
    throw new Error(`README.md: no fenced block after "${README_HELP_INTRO}"`)
  replace(open + 1, close, formatHelp())
  const head = lines.indexOf(README_TABLE_HEAD)
  if (head === -1) throw new Error(`README.md: no table starting "${README_TABLE_HEAD}"`)
  const end = lines.findIndex((l, i) => i > head && !l.startsWith('|'))
  replace(head, end === -1 ? lines.length : end, formatConfigTable())
  return lines.join('\n')
}
