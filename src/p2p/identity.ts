/**
 * The node's p2p identity: an Ed25519 key whose 32-byte seed is kept as hex in
 * `<datadir>/node.key` (mode 0600), created on first start, so the peer id — and with it every
 * bootnode address that names this node — survives restarts. `ibex genesis` writes these files
 * ahead of time so it can list each node's address in the others' bootnodes; it computes peer ids
 * here without loading libp2p (a peer id is base58btc(identity multihash(protobuf(public key)))).
 */
import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import type { Libp2pOptions } from 'libp2p'

import { ConfigError } from '../config/errors.js'
import { writeKeyFile } from '../config/keys.js'

/** NODE_KEY_FILE is the identity's file name inside the datadir. */
export const NODE_KEY_FILE = 'node.key'
/** Bytes of an Ed25519 seed. */
const SEED_BYTES = 32
/** DER prefix of a PKCS#8 Ed25519 private key, followed by the 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/** The libp2p private key type (as createLibp2p takes it). */
export type NodePrivateKey = NonNullable<Libp2pOptions['privateKey']>

export function nodeKeyPath(datadir: string): string {
  return join(datadir, NODE_KEY_FILE)
}

/** newNodeKeySeed draws a random identity seed. */
export function newNodeKeySeed(): Uint8Array {
  return new Uint8Array(randomBytes(SEED_BYTES))
}

/** writeNodeKey stores a seed as hex (mode 0600); fails if the file exists. */
export function writeNodeKey(path: string, seed: Uint8Array): void {
  writeKeyFile(path, seed)
}

/** readNodeKeySeed reads a seed file; undefined when it does not exist. Throws ConfigError when malformed. */
export function readNodeKeySeed(path: string): Uint8Array | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new ConfigError(
      `node key ${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    )
  }
  const hex = text.trim().replace(/^0x/i, '')
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new ConfigError(`node key ${path}: expected 64 hex digits (an Ed25519 seed)`)
  return new Uint8Array(Buffer.from(hex, 'hex'))
}

/** Protobuf header of an Ed25519 public key (field 1 KeyType = 1, field 2: 32 bytes), libp2p's PublicKey message. */
const ED25519_PUBLIC_KEY_PROTOBUF = Uint8Array.of(0x08, 0x01, 0x12, 0x20)
/** Identity multihash header for the 36-byte protobuf key. */
const IDENTITY_MULTIHASH_36 = Uint8Array.of(0x00, 0x24)
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** peerIdOfSeed is the libp2p peer id (12D3KooW…) of an identity seed, computed synchronously. */
export function peerIdOfSeed(seed: Uint8Array): string {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  })
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
  const pub = spki.subarray(spki.length - SEED_BYTES)
  return base58btc(Buffer.concat([IDENTITY_MULTIHASH_36, ED25519_PUBLIC_KEY_PROTOBUF, pub]))
}

function base58btc(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`)
  let out = ''
  while (n > 0n) {
    out = BASE58_ALPHABET[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = `1${out}`
  }
  return out
}

/** loadNodeKey reads `<datadir>/node.key`, creating it on first start, and returns the libp2p key. */
export async function loadNodeKey(datadir: string): Promise<NodePrivateKey> {
  const path = nodeKeyPath(datadir)
  let seed = readNodeKeySeed(path)
  if (seed === undefined) {
    seed = newNodeKeySeed()
    writeNodeKey(path, seed)
  }
  await import('./polyfill.js')
  const { generateKeyPairFromSeed } = await import('@libp2p/crypto/keys')
  return generateKeyPairFromSeed('Ed25519', seed)
}
