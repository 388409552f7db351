/**
 * What the big-state generator puts on chain, drawn from one seed: the same seed and sizes give
 * the same transactions in the same blocks, so the same state root and head hash.
 *
 *   phase 1  the funder (funded in the genesis alloc) sends ETH to `senders` keyed accounts
 *   phase 2  `contracts` ERC-20s (BenchToken, bench/seed/Bench.sol) deployed round-robin by the
 *            senders: each sender holds the whole supply of the tokens it deployed
 *   phase 3  the funder sends ETH to `accounts` funded accounts (addresses from the seed, no keys)
 *   phase 4  the rest of `txs`: ERC-20 transfers, each by a random token's deployer to a random
 *            funded account (one Transfer log each; the recipient's balance slot is written)
 *
 * `txs` counts every transaction of the four phases; they are spread evenly over `blocks` blocks.
 * Every transaction is signed here (native secp256k1) and executed by ibex's BlockBuilder.
 */
import { keccak256 } from '../../src/util/crypto.js'
import { prng } from '../../src/util/prng.js'
import { addressWord, bytes, createdAddress, derivedKey, type Key, selector, signTx, word } from '../seed/sign.js'

export interface BigStateOptions {
  seed: number
  /** Funded accounts (no keys: they only receive ETH and tokens). */
  accounts: number
  /** ERC-20 contracts deployed. */
  contracts: number
  /** Transactions in all, over `blocks` blocks. */
  txs: number
  blocks: number
  /** Keyed accounts that deploy the tokens and send every token transfer. */
  senders: number
}

/** The issue's full size. */
export const FULL_SIZE: BigStateOptions = {
  seed: 1,
  accounts: 1_000_000,
  contracts: 100_000,
  txs: 10_000_000,
  blocks: 1_000_000,
  senders: 10_000,
}

/** The CI gate's size: generated in seconds. */
export const GATE_SIZE: BigStateOptions = {
  seed: 1,
  accounts: 20_000,
  contracts: 1_000,
  txs: 40_000,
  blocks: 2_000,
  senders: 500,
}

/** ETH each sender gets: gas for all its deployments and transfers at the fee cap. */
export const SENDER_FUNDS_WEI = 10n ** 20n
/** ETH each funded account gets, plus a seeded number of wei below it (balances differ). */
export const ACCOUNT_FUNDS_WEI = 10n ** 16n
/** Each token's supply, all to its deployer. */
export const TOKEN_SUPPLY = 10n ** 30n
/** Gas limits of the generated transactions (above what each uses). */
const TRANSFER_GAS = 21_000n
const DEPLOY_GAS = 1_500_000n
const TOKEN_TRANSFER_GAS = 80_000n
const TRANSFER_SELECTOR = selector('transfer(address,uint256)')
/** BenchToken's storage: slot 0 totalSupply, slot 1 balanceOf (mapping), slot 2 allowance. */
export const BALANCE_OF_SLOT = 1n

/** The storage slot of `holder`'s balance in a BenchToken. */
export function balanceSlot(holder: string): string {
  return `0x${Buffer.from(keccak256(bytes(addressWord(holder) + word(BALANCE_OF_SLOT)))).toString('hex')}`
}

/** Funded account `i` of `seed` (0x lowercase). */
export function accountAddress(seed: number, i: number): string {
  return `0x${Buffer.from(keccak256(Buffer.from(`ibex-bigstate/${seed}/account/${i}`)))
    .subarray(12)
    .toString('hex')}`
}

export function funderKey(seed: number): Key {
  return derivedKey(`bigstate/${seed}/funder`, 0)
}

export function validatorKey(seed: number): Key {
  return derivedKey(`bigstate/${seed}/validator`, 0)
}

export interface PlannedTx {
  raw: string
  hash: string
  sender: Uint8Array
  kind: 'fund' | 'deploy' | 'transfer'
  /** transfer: the token and the recipient (sampled for the benchmark's reads). */
  token?: string
  to?: string
}

/** The transactions in order, generated lazily (10M would not fit in memory at once). */
export class BigStatePlan {
  readonly options: BigStateOptions
  readonly senders: Key[] = []
  readonly funder: Key
  /** Token addresses in deployment order (filled as phase 2 is generated). */
  readonly tokens: string[] = []
  readonly #nonces: Uint32Array
  #funderNonce = 0n
  readonly #rand: () => number
  readonly #tokenBytecode: string

  constructor(options: BigStateOptions, tokenBytecode: string) {
    if (options.senders < 1 || options.contracts < 1) throw new Error('at least one sender and one contract')
    const fixed = options.senders + options.contracts + options.accounts
    if (options.txs < fixed)
      throw new Error(
        `--txs ${options.txs} below the ${fixed} transactions that fund and deploy (senders + contracts + accounts)`,
      )
    this.options = options
    this.funder = funderKey(options.seed)
    for (let i = 0; i < options.senders; i++) this.senders.push(derivedKey(`bigstate/${options.seed}/sender`, i))
    this.#nonces = new Uint32Array(options.senders)
    this.#rand = prng(options.seed)
    this.#tokenBytecode = tokenBytecode
  }

  /** Every transaction, in chain order. */
  *transactions(): Generator<PlannedTx> {
    const o = this.options
    for (const s of this.senders) yield this.#fund(s.address, SENDER_FUNDS_WEI)
    for (let j = 0; j < o.contracts; j++) {
      const s = j % o.senders
      const key = this.senders[s] as Key
      const nonce = BigInt(this.#nonces[s]++)
      this.tokens.push(createdAddress(key.address, nonce))
      const signed = signTx(key, {
        nonce,
        to: undefined,
        value: 0n,
        data: bytes(this.#tokenBytecode + word(TOKEN_SUPPLY)),
        gas: DEPLOY_GAS,
      })
      yield { ...signed, sender: key.address, kind: 'deploy' }
    }
    for (let i = 0; i < o.accounts; i++) {
      const extra = BigInt(Math.floor(this.#rand() * 1e12))
      yield this.#fund(bytes(accountAddress(o.seed, i)), ACCOUNT_FUNDS_WEI + extra)
    }
    const transfers = o.txs - o.senders - o.contracts - o.accounts
    for (let t = 0; t < transfers; t++) {
      const j = Math.floor(this.#rand() * o.contracts)
      const s = j % o.senders
      const key = this.senders[s] as Key
      const token = this.tokens[j] as string
      const to = accountAddress(o.seed, Math.floor(this.#rand() * o.accounts))
      const amount = 1n + BigInt(Math.floor(this.#rand() * 1e9))
      const signed = signTx(key, {
        nonce: BigInt(this.#nonces[s]++),
        to: bytes(token),
        value: 0n,
        data: bytes(TRANSFER_SELECTOR + addressWord(to) + word(amount)),
        gas: TOKEN_TRANSFER_GAS,
      })
      yield { ...signed, sender: key.address, kind: 'transfer', token, to }
    }
  }

  #fund(to: Uint8Array, value: bigint): PlannedTx {
    const signed = signTx(this.funder, {
      nonce: this.#funderNonce++,
      to,
      value,
      data: new Uint8Array(0),
      gas: TRANSFER_GAS,
    })
    return { ...signed, sender: this.funder.address, kind: 'fund' }
  }
}
