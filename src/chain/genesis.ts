/**
 * Genesis: the state of a geth-format genesis.json's `alloc` written into the trie, and
 * the block-0 header built from the file's fields under the fork rules active at block 0.
 */
import { createBlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { Account, Address, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import type { TrieStore } from '../state/trieStore.js'
import { createStateManager } from '../state/index.js'
import type { GenesisJson } from './common.js'
import { blockHashOf, engineOf } from './hash.js'

function hexOr(value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback
  if (typeof value === 'number') return `0x${value.toString(16)}`
  return String(value)
}

function toBytes(hex: string): Uint8Array {
  const h = hex.startsWith('0x') ? hex.slice(2) : hex
  return hexToBytes(`0x${h.length % 2 ? `0${h}` : h}`)
}

/** Writes `alloc` into `trie` (pending, flushed with the genesis block) and returns the state root. */
export async function writeGenesisState(genesis: GenesisJson, common: Common, trie: TrieStore): Promise<Uint8Array> {
  const sm = createStateManager(trie, common)
  const alloc = (genesis.alloc ?? {}) as Record<
    string,
    { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }
  >
  for (const [addrHex, acct] of Object.entries(alloc)) {
    const address = new Address(setLengthLeft(toBytes(addrHex), 20))
    const account = new Account(BigInt(hexOr(acct.nonce, '0x0')), BigInt(hexOr(acct.balance, '0x0')))
    await sm.putAccount(address, account)
    if (acct.code !== undefined && acct.code !== '0x' && acct.code !== '') await sm.putCode(address, toBytes(acct.code))
    for (const [slot, value] of Object.entries(acct.storage ?? {})) {
      const v = toBytes(value)
      if (v.every((b) => b === 0)) continue
      await sm.putStorage(address, setLengthLeft(toBytes(slot), 32), v)
    }
  }
  return sm.getStateRoot()
}

export interface GenesisResult {
  headerRaw: Uint8Array[]
  hash: Uint8Array
}

export async function buildGenesis(genesis: GenesisJson, common: Common, trie: TrieStore): Promise<GenesisResult> {
  const stateRoot = await writeGenesisState(genesis, common, trie)
  const header = createBlockHeader(
    {
      number: 0n,
      parentHash: hexOr(genesis.parentHash, `0x${'00'.repeat(32)}`) as `0x${string}`,
      coinbase: hexOr(genesis.coinbase, `0x${'00'.repeat(20)}`) as `0x${string}`,
      stateRoot,
      difficulty: BigInt(hexOr(genesis.difficulty, '0x0')),
      gasLimit: BigInt(hexOr(genesis.gasLimit, '0x1c9c380')),
      timestamp: BigInt(hexOr(genesis.timestamp, '0x0')),
      extraData: toBytes(hexOr(genesis.extraData, '0x')),
      mixHash: hexOr(genesis.mixHash ?? genesis.mixhash, `0x${'00'.repeat(32)}`) as `0x${string}`,
      nonce: setLengthLeft(toBytes(hexOr(genesis.nonce, '0x0')), 8),
      ...(common.isActivatedEIP(1559) ? { baseFeePerGas: BigInt(hexOr(genesis.baseFeePerGas, '0x3b9aca00')) } : {}),
      ...(common.isActivatedEIP(4844)
        ? {
            excessBlobGas: BigInt(hexOr(genesis.excessBlobGas, '0x0')),
            blobGasUsed: BigInt(hexOr(genesis.blobGasUsed, '0x0')),
          }
        : {}),
    },
    { common, skipConsensusFormatValidation: true, setHardfork: false },
  )
  const headerRaw = header.raw()
  return { headerRaw, hash: blockHashOf(headerRaw, engineOf(genesis)) }
}
