/**
 * The faucet's memory: when each address and each client IP was last served, and how much was
 * sent today (UTC). Kept in one JSON file, rewritten atomically (temp file, fsync, rename) on
 * every grant, so neither a restart nor a crash lets an address be funded twice in its cooldown.
 *
 *   check(address, ip) ─ ok ─▶ reserve (written) ─▶ send ─ fails ─▶ release (written)
 *                      └ refusal: cooling down (address or IP) or the daily budget spent
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/** Why a request is refused before anything is sent. */
export interface FaucetRefusal {
  kind: 'address-cooldown' | 'ip-cooldown' | 'daily-budget'
  /** Milliseconds until the request would pass. */
  waitMs: number
  /** When the address or IP was last served (cooldowns). */
  lastMs?: number
}

interface StateFile {
  version: 1
  /** UTC day `spentWei` belongs to, YYYY-MM-DD. */
  day: string
  spentWei: string
  addresses: Record<string, number>
  ips: Record<string, number>
}

const DAY_MS = 86_400_000

/** The UTC day of `ms`, YYYY-MM-DD. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** Milliseconds from `ms` to the next 00:00 UTC. */
export function msToUtcMidnight(ms: number): number {
  return DAY_MS - (ms % DAY_MS)
}

/** What a grant changed, to undo it when the transaction could not be sent. */
export interface Reservation {
  address: string
  ip: string
  amountWei: bigint
  previousAddressMs: number | undefined
  previousIpMs: number | undefined
  day: string
}

export class FaucetState {
  readonly path: string
  readonly cooldownMs: number
  #day: string
  #spentWei: bigint
  readonly #addresses: Map<string, number>
  readonly #ips: Map<string, number>

  private constructor(path: string, cooldownMs: number, file: StateFile) {
    this.path = path
    this.cooldownMs = cooldownMs
    this.#day = file.day
    this.#spentWei = BigInt(file.spentWei)
    this.#addresses = new Map(Object.entries(file.addresses))
    this.#ips = new Map(Object.entries(file.ips))
  }

  /** Reads the state file (a missing file is a fresh state); throws on a corrupt one rather than forgetting cooldowns. */
  static load(path: string, cooldownMs: number, nowMs = Date.now()): FaucetState {
    let file: StateFile = { version: 1, day: utcDay(nowMs), spentWei: '0', addresses: {}, ips: {} }
    if (existsSync(path)) {
      try {
        file = JSON.parse(readFileSync(path, 'utf8')) as StateFile
        BigInt(file.spentWei)
        if (typeof file.addresses !== 'object' || typeof file.ips !== 'object') throw new Error('missing tables')
      } catch (err) {
        throw new Error(`${path}: faucet state unreadable (${(err as Error).message}); fix or remove it`)
      }
    }
    const state = new FaucetState(path, cooldownMs, file)
    state.#prune(nowMs)
    return state
  }

  /** Wei sent on the current UTC day. */
  spentToday(nowMs = Date.now()): bigint {
    return this.#day === utcDay(nowMs) ? this.#spentWei : 0n
  }

  /** Why `address` (lowercase) from `ip` may not get `amountWei` now, or undefined. */
  check(
    address: string,
    ip: string,
    amountWei: bigint,
    dailyBudgetWei: bigint,
    nowMs = Date.now(),
  ): FaucetRefusal | undefined {
    const lastAddress = this.#addresses.get(address)
    if (lastAddress !== undefined && nowMs - lastAddress < this.cooldownMs) {
      return { kind: 'address-cooldown', waitMs: lastAddress + this.cooldownMs - nowMs, lastMs: lastAddress }
    }
    const lastIp = this.#ips.get(ip)
    if (lastIp !== undefined && nowMs - lastIp < this.cooldownMs) {
      return { kind: 'ip-cooldown', waitMs: lastIp + this.cooldownMs - nowMs, lastMs: lastIp }
    }
    if (this.spentToday(nowMs) + amountWei > dailyBudgetWei) {
      return { kind: 'daily-budget', waitMs: msToUtcMidnight(nowMs) }
    }
    return undefined
  }

  /** Records a grant and writes the file before anything is sent. */
  reserve(address: string, ip: string, amountWei: bigint, nowMs = Date.now()): Reservation {
    const day = utcDay(nowMs)
    if (this.#day !== day) {
      this.#day = day
      this.#spentWei = 0n
    }
    const r: Reservation = {
      address,
      ip,
      amountWei,
      previousAddressMs: this.#addresses.get(address),
      previousIpMs: this.#ips.get(ip),
      day,
    }
    this.#addresses.set(address, nowMs)
    this.#ips.set(ip, nowMs)
    this.#spentWei += amountWei
    this.save(nowMs)
    return r
  }

  /** Undoes a reservation whose transaction was not sent. */
  release(r: Reservation, nowMs = Date.now()): void {
    if (r.previousAddressMs === undefined) this.#addresses.delete(r.address)
    else this.#addresses.set(r.address, r.previousAddressMs)
    if (r.previousIpMs === undefined) this.#ips.delete(r.ip)
    else this.#ips.set(r.ip, r.previousIpMs)
    if (this.#day === r.day) this.#spentWei -= r.amountWei
    this.save(nowMs)
  }

  /** Drops entries whose cooldown is over, so the file does not grow without end. */
  #prune(nowMs: number): void {
    for (const table of [this.#addresses, this.#ips]) {
      for (const [key, ms] of table) if (nowMs - ms >= this.cooldownMs) table.delete(key)
    }
  }

  save(nowMs = Date.now()): void {
    this.#prune(nowMs)
    const file: StateFile = {
      version: 1,
      day: this.#day,
      spentWei: this.#spentWei.toString(),
      addresses: Object.fromEntries(this.#addresses),
      ips: Object.fromEntries(this.#ips),
    }
    mkdirSync(dirname(this.path), { recursive: true })
    const tmp = `${this.path}.tmp`
    const fd = openSync(tmp, 'w', 0o600)
    try {
      writeSync(fd, JSON.stringify(file))
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, this.path)
  }
}
