/**
 * The kinds of value a setting can hold. A kind knows how to parse a raw value (a flag's string
 * or a TOML value, through src/config/values.ts), how to write a value for people (`--help`, the
 * README) and its placeholder in the help. The rows of src/config/settings.ts pick one kind each;
 * nothing else about parsing or showing a value is written per row.
 *
 * Also here: the typed paths into IbexConfig that rows write to, and how a row's default is
 * declared (a value, a function of the network preset, or a described absence).
 */
import type { NetworkPreset } from './presets.js'
import type { IbexConfig, NetworkName } from './types.js'
import {
  parseBigInt,
  parseBoolean,
  parseDurationMs,
  parseEnum,
  parseHost,
  parseInteger,
  parsePort,
  parseString,
  parseUrl,
  parseUrls,
  parseWei,
} from './values.js'

export interface Kind<T> {
  parse(raw: unknown): T
  /** The value as written in `--help` and the README. */
  show(value: T): string
  /** Placeholder in the help (`N`, `DURATION`); undefined for a boolean flag given alone (`--ws`). */
  metavar: string | undefined
  /** Relative paths resolve against the config file's directory (flags: the working directory). */
  resolves?: boolean
}

const MIB = 1024 * 1024
const MB = 1_000_000
const WEI_UNITS: readonly [bigint, string][] = [
  [10n ** 18n, 'ether'],
  [10n ** 9n, 'gwei'],
]

/** showDuration: `0`, `500ms`, `2s`, `300s (5 min)`, `10800s (3 h)`. */
export function showDuration(ms: number): string {
  if (ms === 0 || ms % 1000 !== 0) return ms === 0 ? '0' : `${ms}ms`
  const s = ms / 1000
  if (s < 300 || s % 60 !== 0) return `${s}s`
  return s % 3600 === 0 ? `${s}s (${s / 3600} h)` : `${s}s (${s / 60} min)`
}

/** showBytes: `1024`, `5242880 (5 MiB)`, `25000000 (25 MB)`. */
export function showBytes(n: number): string {
  if (n >= MIB && n % MIB === 0) return `${n} (${n / MIB} MiB)`
  return n >= MB && n % MB === 0 ? `${n} (${n / MB} MB)` : String(n)
}

/** showWei: `0`, `7`, `1gwei`, `500ether`: the largest unit that divides the amount. */
export function showWei(wei: bigint): string {
  const unit = WEI_UNITS.find(([size]) => wei > 0n && wei % size === 0n)
  return unit === undefined ? String(wei) : `${wei / unit[0]}${unit[1]}`
}

const showList = (items: readonly string[]) => (items.length === 0 ? 'none' : items.join(','))
const showText = (s: string) => (s === '' ? '"" (none)' : s)

function kind<T>(metavar: string | undefined, parse: (raw: unknown) => T, show: (v: T) => string = String): Kind<T> {
  return { parse, show, metavar }
}

/** An integer `min`..`max` (flags: decimal; TOML: an integer). */
export const int = (min: number, max = Number.MAX_SAFE_INTEGER, metavar = 'N') =>
  kind(metavar, (raw) => parseInteger(raw, min, max))
/** A size in bytes: an integer, shown with its MiB or MB. */
export const bytes = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  kind('BYTES', (raw) => parseInteger(raw, min, max), showBytes)
/** A duration at least `minMs` long (`0`, `2`, `1.5`, `2s`, `500ms`; TOML numbers are seconds), in ms. */
export const duration = (minMs: number) => kind('DURATION', (raw) => parseDurationMs(raw, minMs), showDuration)
export const port = kind('PORT', parsePort)
export const gas = kind('GAS', (raw) => parseBigInt(raw, 1n, undefined, 'expected an integer >= 1'))
export const wei = kind('WEI', parseWei, showWei)
export const bool = kind(undefined, parseBoolean)
export const host = kind('HOST', parseHost)
/** A non-empty string; `emptyOk` also takes "" (meaning: none). */
export const text = (metavar = 'TEXT', emptyOk = false) =>
  kind(metavar, (raw) => (emptyOk && raw === '' ? '' : parseString(raw)), showText)
/** A path: resolved against the config file's directory (flags: the working directory). */
export const file = (metavar = 'FILE'): Kind<string> => ({ ...kind(metavar, parseString), resolves: true })
export const oneOf = <T extends string>(values: readonly T[], metavar: string) =>
  kind(metavar, (raw) => parseEnum(raw, values))
/** An absolute URL with one of `schemes`; `emptyOk` also takes "" (none). */
export const url = (schemes: readonly string[], emptyOk = false) =>
  kind('URL', (raw) => (emptyOk && raw === '' ? '' : parseUrl(raw, schemes)), showText)
/** A list (`a,b` on the command line, an array in TOML) checked by `parse`. */
export const list = <T extends string>(parse: (raw: unknown) => T[]) => kind('LIST', parse, showList)
export const urls = (schemes: readonly string[]) => list((raw) => parseUrls(raw, schemes))

// ── Where a row writes ───────────────────────────────────────────────────────────────────────

type Leaf = string | number | bigint | boolean | readonly unknown[] | undefined

/** ConfigPath: every leaf of IbexConfig as a dotted path (`jsonrpc.port`, `jsonrpc.rateLimit.call`). */
export type ConfigPath<T = IbexConfig, P extends string = ''> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends Leaf ? `${P}${K}` : ConfigPath<NonNullable<T[K]>, `${P}${K}.`>
}[keyof T & string]

/** ValueAt: the type IbexConfig holds at a path. */
export type ValueAt<P extends string, T = IbexConfig> = P extends `${infer H}.${infer R}`
  ? ValueAt<R, NonNullable<T[H & keyof T]>>
  : T[P & keyof T]

/** Camel: the field a TOML key lands in unless the row says otherwise (`max_body_bytes` → `maxBodyBytes`). */
export type Camel<S extends string> = S extends `${infer H}_${infer R}` ? `${H}${Capitalize<Camel<R>>}` : S

/** camel is Camel at run time. */
export function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}

/** setAt writes `value` at `path`; a missing section is made by `make(section)` first. */
export function setAt(config: IbexConfig, path: string, value: unknown, make: (section: string) => object): void {
  const names = path.split('.')
  let node = config as unknown as Record<string, unknown>
  for (const [i, name] of names.slice(0, -1).entries()) {
    node[name] ??= make(names.slice(0, i + 1).join('.'))
    node = node[name] as Record<string, unknown>
  }
  node[names.at(-1) as string] = Array.isArray(value) ? [...value] : value
}

/** getAt reads the value at `path` (undefined when a section on the way is absent). */
export function getAt(config: IbexConfig, path: string): unknown {
  let node: unknown = config
  for (const name of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[name]
  return node
}

// ── Defaults ─────────────────────────────────────────────────────────────────────────────────

/** A default that differs between the network presets (src/config/presets.ts). */
export class PresetDefault<T> {
  constructor(readonly pick: (preset: NetworkPreset, network: NetworkName) => T) {}
}

/** A default that is not a value: absent (`the network preset`) or set by the machine (`cores - 1`). */
export class DescribedDefault<T> {
  constructor(
    readonly description: string,
    readonly value: T,
  ) {}
}

export type Default<T> = T | PresetDefault<T> | DescribedDefault<T>

/** byPreset: the default is read from the network preset. */
export const byPreset = <T>(pick: (preset: NetworkPreset, network: NetworkName) => T) => new PresetDefault(pick)
/** unset: no value by default; `description` says what happens then. */
export const unset = (description: string) => new DescribedDefault<undefined>(description, undefined)
/** described: a default computed where the node runs (e.g. from the core count), shown as `description`. */
export const described = <T>(description: string, value: T) => new DescribedDefault(description, value)
