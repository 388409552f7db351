/**
 * `ibex help [COMMAND]`, `ibex version`, and the README's config table — all generated from the
 * settings table (src/config/settings.ts), the same one the parser uses.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { packageRoot } from '../../config/genesis.js'
import { COMMAND_FLAGS, type Command, SETTINGS, tomlKeyName } from '../../config/settings.js'

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

function flagRows(): [string, string][] {
  return SETTINGS.filter((s) => s.flag !== undefined).map((s) => [
    `--${s.flag}${s.metavar === undefined ? '' : ` ${s.metavar}`}`,
    `${s.help} [default: ${s.defaultText}]`,
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
    lines.push('', 'Flags of start, init, import, export, genesis, faucet and chain-info:', ...columns(flagRows()))
    lines.push('', 'Flags of genesis only:', ...columns(commandFlagRows('genesis')))
  } else {
    const doc = COMMAND_DOCS.find((c) => c.name === topic) as CommandDoc
    lines.push(`Usage: ${doc.usage}`, '', `${doc.summary[0]?.toUpperCase()}${doc.summary.slice(1)}.`, '', 'Flags:')
    lines.push(...columns([...commandFlagRows(topic), ...flagRows()]))
  }
  lines.push('', ...FOOTER)
  return lines.join('\n')
}

/** formatConfigTable: the README's table of every setting — key, flag, default, meaning. */
export function formatConfigTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|')
  const rows = SETTINGS.map((s) => {
    const key = s.toml === undefined ? '—' : `\`${tomlKeyName(s.toml)}\``
    const flag = s.flag === undefined ? '—' : `\`--${s.flag}${s.metavar === undefined ? '' : ` ${s.metavar}`}\``
    return `| ${key} | ${flag} | \`${cell(s.defaultText)}\` | ${cell(s.help)} |`
  })
  return ['| key | flag | default | meaning |', '|---|---|---|---|', ...rows].join('\n')
}
