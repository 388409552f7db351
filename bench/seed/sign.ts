/**
 * EIP-1559 transactions signed here with native secp256k1 (tens of thousands are pre-signed for
 * the write path: ethereumjs' JS signer would take minutes), plus the few ABI encodings the seed
 * needs. The same signed bytes go to every node (all run chain id BENCH_CHAIN_ID).
 */
import { RLP } from '@ethereumjs/rlp'
import secp256k1 from 'secp256k1'
import { keccak256, privateKeyToAddressBytes } from '../../src/util/crypto.js'

/** Every node of the benchmark runs this chain id (ibex's dev chain; anvil and hardhat are told). */
export const BENCH_CHAIN_ID = 1337n
/** Fee cap of every seeded transaction: far above any base fee the runs reach. */
export const MAX_FEE_WEI = 100n * 10n ** 9n
export const TIP_WEI = 10n ** 9n

export interface Key {
  privateKey: Uint8Array
  address: Uint8Array
  /** 0x-prefixed lowercase. */
  hex: string
}

export function keyOf(privateKey: Uint8Array): Key {
  const address = privateKeyToAddressBytes(privateKey)
  return { privateKey, address, hex: hex(address) }
}

/** Deterministic key number `i` of a named set (keccak of the label: same keys every run). */
export function derivedKey(label: string, i: number): Key {
  return keyOf(keccak256(Buffer.from(`ibex-bench/${label}/${i}`)))
}

export function hex(b: Uint8Array): string {
  return `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`
}

export function bytes(h: string): Uint8Array {
  return new Uint8Array(Buffer.from(h.startsWith('0x') ? h.slice(2) : h, 'hex'))
}

function quantity(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0)
  let h = n.toString(16)
  if (h.length % 2 === 1) h = `0${h}`
  return bytes(h)
}

export interface TxFields {
  nonce: bigint
  /** undefined = contract creation. */
  to: Uint8Array | undefined
  value: bigint
  data: Uint8Array
  gas: bigint
}

export interface SignedTx {
  /** 0x-prefixed raw transaction (eth_sendRawTransaction's param). */
  raw: string
  hash: string
}

/** Signs a type-2 transaction on BENCH_CHAIN_ID. */
export function signTx(key: Key, f: TxFields): SignedTx {
  const fields = [
    quantity(BENCH_CHAIN_ID),
    quantity(f.nonce),
    quantity(TIP_WEI),
    quantity(MAX_FEE_WEI),
    quantity(f.gas),
    f.to ?? new Uint8Array(0),
    quantity(f.value),
    f.data,
    [],
  ]
  const unsigned = RLP.encode(fields)
  const digest = keccak256(Buffer.concat([Buffer.from([2]), unsigned]))
  const { signature, recid } = secp256k1.ecdsaSign(digest, key.privateKey)
  const r = signature.subarray(0, 32)
  const s = signature.subarray(32, 64)
  const strip = (b: Uint8Array): Uint8Array => {
    let i = 0
    while (i < b.length && b[i] === 0) i++
    return b.subarray(i)
  }
  const raw = Buffer.concat([Buffer.from([2]), RLP.encode([...fields, quantity(BigInt(recid)), strip(r), strip(s)])])
  return { raw: hex(raw), hash: hex(keccak256(raw)) }
}

/** The address a contract created by `sender` at `nonce` gets. */
export function createdAddress(sender: Uint8Array, nonce: bigint): string {
  return hex(keccak256(RLP.encode([sender, quantity(nonce)])).subarray(12))
}

/** The 4-byte selector of a function signature, hex without 0x. */
export function selector(signature: string): string {
  return Buffer.from(keccak256(Buffer.from(signature)))
    .subarray(0, 4)
    .toString('hex')
}

export function word(n: bigint | number): string {
  return BigInt(n).toString(16).padStart(64, '0')
}

export function addressWord(address: string): string {
  return address.slice(2).toLowerCase().padStart(64, '0')
}

/** ABI: `f(address[] list, uint256 value)` / `f(address[] list)` with a dynamic array first. */
export function encodeAddressArrayCall(sig: string, list: string[], trailing: bigint[] = []): Uint8Array {
  const head = word(32 * (1 + trailing.length)) + trailing.map(word).join('')
  const tail = word(list.length) + list.map(addressWord).join('')
  return bytes(selector(sig) + head + tail)
}
