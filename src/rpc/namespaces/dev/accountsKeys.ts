/**
 * UnlockedAccounts: the accounts whose keys the node holds and signs with for its clients — on the
 * dev chain the test mnemonic's (src/config/accounts.ts devAccounts, `[dev] unlocked_accounts`),
 * elsewhere none (geth's account manager with no wallet: every request answers `unknown account`).
 * Keys stay inside this object: the namespaces ask it for a signature over a digest.
 *
 * It also serialises the sends of one account (geth's AddrLocker): eth_sendTransaction reads the
 * pool's next nonce, estimates gas off the main thread and submits; two sends of one account
 * running side by side would otherwise take the same nonce.
 */
import secp256k1 from 'secp256k1'
import type { DevAccount } from '../../../config/accounts.js'
import { keccak256 } from '../../../util/crypto.js'
import { hexToBytes } from '../../../util/hex.js'
import { ServerError } from '../../errors.js'

/** Bytes of a signature r ‖ s ‖ v. */
export const SIGNATURE_BYTES = 65
/** geth's eth_sign, personal_sign and signTypedData put v as 27/28 (the yellow paper's), not 0/1. */
export const LEGACY_V_OFFSET = 27

/** -32000 `unknown account`: the node holds no key for this address (geth's accounts.ErrUnknownAccount). */
export class UnknownAccountError extends ServerError {
  constructor() {
    super('unknown account')
  }
}

/** A signature over a digest: r ‖ s (64 bytes) and the recovery id (0 or 1). */
export interface DigestSignature {
  rs: Uint8Array
  recovery: number
}

const UTF8 = new TextEncoder()

/** EIP-191 version 0x45: keccak256("\x19Ethereum Signed Message:\n" ‖ len(data) ‖ data), what eth_sign and personal_sign sign. */
export function personalMessageDigest(data: Uint8Array): Uint8Array {
  const prefix = UTF8.encode(`\x19Ethereum Signed Message:\n${data.length}`)
  const message = new Uint8Array(prefix.length + data.length)
  message.set(prefix)
  message.set(data, prefix.length)
  return keccak256(message)
}

export class UnlockedAccounts {
  /** Lowercase 0x address → private key. */
  readonly #keys: Map<string, Uint8Array>
  /** Lowercase 0x addresses in the order given (eth_accounts). */
  readonly addresses: readonly string[]
  /** The tail of each account's queue of sends. */
  readonly #queues: Map<string, Promise<unknown>>

  constructor(accounts: readonly DevAccount[]) {
    this.#keys = new Map(accounts.map((a) => [a.address.toLowerCase(), hexToBytes(a.privateKey)]))
    this.addresses = Object.freeze([...this.#keys.keys()])
    this.#queues = new Map()
  }

  /** No account unlocked (testnet, mainnet, a --genesis chain without `[dev] unlocked_accounts`). */
  static none(): UnlockedAccounts {
    return new UnlockedAccounts([])
  }

  has(address: string): boolean {
    return this.#keys.has(address.toLowerCase())
  }

  /** Signs a 32-byte digest with `address`'s key (RFC 6979 nonces, low s); UnknownAccountError without one. */
  signDigest(address: string, digest: Uint8Array): DigestSignature {
    const key = this.#keys.get(address.toLowerCase())
    if (key === undefined) throw new UnknownAccountError()
    const { signature, recid } = secp256k1.ecdsaSign(digest, key)
    return { rs: signature, recovery: recid }
  }

  /** r ‖ s ‖ v with v 27/28, as geth's eth_sign answers. */
  signLegacy(address: string, digest: Uint8Array): Uint8Array {
    const { rs, recovery } = this.signDigest(address, digest)
    const out = new Uint8Array(SIGNATURE_BYTES)
    out.set(rs)
    out[SIGNATURE_BYTES - 1] = recovery + LEGACY_V_OFFSET
    return out
  }

  /** Runs `task` after every earlier task of `address` has settled (one send per account at a time). */
  serialize<T>(address: string, task: () => Promise<T>): Promise<T> {
    const key = address.toLowerCase()
    const previous = this.#queues.get(key) ?? Promise.resolve()
    const run = previous.then(task, task)
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    this.#queues.set(key, tail)
    void tail.then(() => {
      if (this.#queues.get(key) === tail) this.#queues.delete(key)
    })
    return run
  }
}
