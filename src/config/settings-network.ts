/**
 * Rows of the settings table (settings.ts) for multi-validator IBFT, and the `ibex genesis` flags
 * that lay out a local network (nodes, ports, prefunded accounts); settings.ts splices them in.
 */
import {
  DEFAULT_HTTP_PORT,
  DEFAULT_P2P_PORT,
  IBFT_MIN_ROUND_TIMEOUT_MS,
  IBFT_ROUND_TIMEOUT_BASE_MS,
} from './defaults.js'
import { ValueProblem } from './errors.js'
import type { CommandFlagDef, SettingDef } from './settings.js'
import type { IbexConfig } from './types.js'
import { parseDurationMs, parseInteger, parsePort, parseWei } from './values.js'

/** Most full nodes `ibex genesis` lays out next to the validators. */
export const GENESIS_MAX_FULL_NODES = 100

/** `[ibft]` rows. */
export const IBFT_SETTINGS: readonly SettingDef[] = [
  {
    flag: 'ibft.round-timeout',
    toml: ['ibft', 'round_timeout'],
    metavar: 'DURATION',
    defaultText: `${IBFT_ROUND_TIMEOUT_BASE_MS / 1000}s`,
    help: 'IBFT round timeout base: round r ends after base·2^r + block time without a decision',
    parse: (raw) => parseDurationMs(raw, IBFT_MIN_ROUND_TIMEOUT_MS),
    apply: (c: IbexConfig, v) => {
      c.ibft.roundTimeoutBaseMs = v as number
    },
  },
]

/** A `--prefund ADDR=WEI` entry. */
export interface Prefund {
  address: string
  wei: bigint
}

function parsePrefund(raw: unknown): Prefund {
  const m = typeof raw === 'string' ? /^(0x[0-9a-fA-F]{40})=(.+)$/.exec(raw) : null
  if (m === null)
    throw new ValueProblem('expected ADDRESS=WEI, e.g. 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266=1000ether')
  return { address: m[1] as string, wei: parseWei(m[2]) }
}

/** `ibex genesis` flags for the node directories it writes. */
export const GENESIS_NETWORK_FLAGS: readonly CommandFlagDef[] = [
  {
    flag: 'full-nodes',
    commands: ['genesis'],
    metavar: 'M',
    help: 'also lay out M full nodes (no validator key) after the validators',
    parse: (raw) => parseInteger(raw, 0, GENESIS_MAX_FULL_NODES),
  },
  {
    flag: 'http-base-port',
    commands: ['genesis'],
    metavar: 'H',
    help: `node i serves JSON-RPC on port H+i-1 [default: ${DEFAULT_HTTP_PORT}]`,
    parse: parsePort,
  },
  {
    flag: 'p2p-base-port',
    commands: ['genesis'],
    metavar: 'P',
    help: `node i listens for peers on port P+i-1 [default: ${DEFAULT_P2P_PORT}]`,
    parse: parsePort,
  },
  {
    flag: 'prefund',
    commands: ['genesis'],
    metavar: 'ADDR=WEI',
    help: 'fund an account in the genesis (1000ether, 5gwei or wei); repeatable',
    parse: parsePrefund,
    repeatable: true,
  },
]
