/**
 * Seating the validators of a new genesis in the Validator DAO (`ibex genesis --validators N`,
 * issue 19): each validator holds a DAO seat with the tier's minimum stake locked and names its
 * node key as the seat's signer, so the chain has a validator layer from block 0
 * (ValidatorSigners.validatorSet() lists them).
 *
 * Nothing is written by hand: the DAO's own code runs, exactly as the transactions would on chain,
 * in a throw-away ethereumjs VM (Prague, the genesis chain id and timestamp) loaded with the
 * genesis alloc, and what it wrote is copied back into the alloc:
 *
 *   alloc (the preset's DAO at its fixed addresses) ─▶ VM state at block 0
 *   per validator, holder = signer = its address:
 *     KycRegistry.attest(holder, identity, Individual, expiry, evidence) caller: the Ops Safe
 *       (identity: a commitment of its own per validator, so each is one KYC identity)
 *     holder credited the stake; ValidatorDAO.applyForSeat(tier, the three current document
 *       hashes, form hash) with the stake as value                    caller: the holder
 *     ValidatorDAO.approveApplication(id) → seat                      caller: the Ops Safe
 *     ValidatorSigners.setSigner(seat, signer)                        caller: the holder
 *   ─▶ every slot written (traced SSTOREs: zero → removed) and the balances changed, into alloc
 *
 * The coin of the stakes is created by the genesis: it sits in ValidatorDAO's balance as if
 * deposited, and each holder's own balance is what it was. Seats fill Tier III first (ids 51…, the
 * smallest minimum stake: 222,222 coins on every preset), then Tier II, then Tier I; the DAO has 150
 * seats, so at most 150 validators are seated. The Ops Safe (KYC attestor and membership role on
 * every preset) is the caller that attests and approves; no transaction or signature of it is made.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { createBlock } from '@ethereumjs/block'
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import {
  Address,
  bigIntToBytes,
  bytesToBigInt,
  bytesToHex,
  concatBytes,
  createAccount,
  hexToBytes,
  setLengthLeft,
  utf8ToBytes,
} from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'

import { keccak256 } from '../util/keccak.js'
import { ConfigError } from './errors.js'
import { type GethGenesis, type GethGenesisAccount, daoGenesis, packageRoot } from './genesis.js'

/** Seats per tier (DaoTypes.sol, Seats.capacity), in the order they are filled: Tier III, II, I. */
export const TIER_SEATS: readonly (readonly [tier: number, seats: number])[] = [
  [3, 100],
  [2, 40],
  [1, 10],
]
/** MAX_GENESIS_SEATS: every seat of the DAO (150). */
export const MAX_GENESIS_SEATS = TIER_SEATS.reduce((n, [, seats]) => n + seats, 0)
/** KYC_VALIDITY_S: the genesis attestations last a year from the later of the genesis time and now. */
export const GENESIS_KYC_VALIDITY_S = 365 * 86_400
/** KYC category of the genesis validators (KycRegistry: 1 Individual, 2 Company, 3 Government, 4 Religious). */
const KYC_INDIVIDUAL = 1n
/** Gas of one call in the throw-away VM: a block's worth (an approval costs a few hundred thousand). */
const CALL_GAS = 30_000_000n
/** Base fee of the VM's block; calls run at gas price 0, so nobody pays it. */
const VM_BASE_FEE_WEI = 1_000_000_000n
const WORD_BYTES = 32

/** One validator to seat: holder and signer are the same address (its node key). */
export interface GenesisSeat {
  /** Its position in the validator list. */
  index: number
  holder: string
  signer: string
  seat: bigint
  tier: number
  /** Wei locked (the tier's minimum). */
  stake: bigint
}

/** carriesValidatorSigners: the genesis alloc has the ValidatorSigners contract (the presets do). */
export function carriesValidatorSigners(genesis: GethGenesis): boolean {
  const address = daoGenesis('dev').addresses.ValidatorSigners as string
  const code = allocEntry(genesis.alloc, address)?.[1].code
  return code !== undefined && code !== '0x' && code !== ''
}

/**
 * seatGenesisValidators seats `validators` (addresses, in list order) in the DAO of `genesis`,
 * writing the resulting state into `genesis.alloc` (module doc). Refuses more validators than the
 * DAO has free seats. `now` (unix seconds) only sets the KYC expiry.
 */
export async function seatGenesisValidators(
  genesis: GethGenesis,
  validators: string[],
  now: number = Math.floor(Date.now() / 1000),
): Promise<GenesisSeat[]> {
  const a = daoGenesis('dev').addresses as Record<string, string>
  const vm = await GenesisVm.create(genesis)
  const dao = a.ValidatorDAO as string
  const ops = a.OpsSafe as string
  const free = new Map<number, number>()
  for (const [tier, seats] of TIER_SEATS)
    free.set(tier, seats - Number(await vm.view(dao, 'seatedCount(uint8)', [uint(tier)])))
  const freeTotal = [...free.values()].reduce((x, y) => x + y, 0)
  if (validators.length > freeTotal) {
    throw new ConfigError(
      `${validators.length} validators cannot all be seated: the Validator DAO has ${freeTotal} free seats of ${MAX_GENESIS_SEATS} (Tier III 100, Tier II 40, Tier I 10)`,
    )
  }
  const documents = []
  for (const fn of ['disclaimerHash()', 'riskWarningHash()', 'informationMemorandumHash()'])
    documents.push(setLengthLeft(bigIntToBytes(await vm.view(dao, fn, [])), WORD_BYTES))
  const timestamp = Number(BigInt(genesis.timestamp))
  const kycExpiry = BigInt(Math.max(timestamp, now) + GENESIS_KYC_VALIDITY_S)

  const seats: GenesisSeat[] = []
  for (const [index, address] of validators.entries()) {
    const tier = TIER_SEATS.find(([t]) => (free.get(t) ?? 0) > 0)?.[0] as number
    free.set(tier, (free.get(tier) as number) - 1)
    const stake = await vm.view(dao, 'minStake(uint8)', [uint(tier)])
    const evidence = keccak256(utf8ToBytes(`ibex genesis: KYC of validator ${address}`))
    const identity = keccak256(utf8ToBytes(`ibex genesis: KYC identity of validator ${address.toLowerCase()}`))
    await vm.call(ops, a.KycRegistry as string, 'attest(address,bytes32,uint8,uint64,bytes32)', [
      word(address),
      identity,
      uint(KYC_INDIVIDUAL),
      uint(kycExpiry),
      evidence,
    ])
    await vm.credit(address, stake)
    const form = keccak256(utf8ToBytes(`ibex genesis: application form of validator ${address}`))
    const id = await vm.call(
      address,
      dao,
      'applyForSeat(uint8,bytes32,bytes32,bytes32,bytes32)',
      [uint(tier), ...documents, form],
      stake,
    )
    const seat = await vm.call(ops, dao, 'approveApplication(uint256)', [uint(id)])
    await vm.call(address, a.ValidatorSigners as string, 'setSigner(uint256,address)', [uint(seat), word(address)])
    seats.push({ index, holder: address, signer: address, seat, tier, stake })
  }
  await vm.dumpInto(genesis.alloc, [dao, ...validators])
  return seats
}

/** A throw-away VM over a genesis alloc that records every storage slot it writes. */
class GenesisVm {
  /** address (lower-case hex) → slots written (32-byte keys as hex). */
  private readonly written = new Map<string, Set<string>>()
  private readonly errors = errorNames()

  private constructor(
    private readonly vm: Awaited<ReturnType<typeof createVM>>,
    private readonly block: ReturnType<typeof createBlock>,
  ) {
    vm.evm.events?.on('step', (step) => {
      if (step.opcode.name !== 'SSTORE') return
      const address = step.address.toString().toLowerCase()
      let slots = this.written.get(address)
      if (slots === undefined) {
        slots = new Set()
        this.written.set(address, slots)
      }
      slots.add(bytesToHex(setLengthLeft(bigIntToBytes(step.stack[step.stack.length - 1] as bigint), WORD_BYTES)))
    })
  }

  static async create(genesis: GethGenesis): Promise<GenesisVm> {
    const common = createCustomCommon({ chainId: genesis.config.chainId }, Mainnet, { hardfork: Hardfork.Prague })
    const vm = await createVM({ common })
    const sm = vm.stateManager
    for (const [key, account] of Object.entries(genesis.alloc)) {
      const at = addressOf(key)
      await sm.putAccount(at, createAccount({ nonce: quantity(account.nonce), balance: quantity(account.balance) }))
      if (account.code !== undefined && account.code !== '0x') await sm.putCode(at, hexToBytes(prefixed(account.code)))
      for (const [slot, value] of Object.entries(account.storage ?? {})) {
        await sm.putStorage(at, setLengthLeft(hexToBytes(prefixed(slot)), WORD_BYTES), hexToBytes(prefixed(value)))
      }
    }
    const block = createBlock(
      {
        header: {
          number: 0n,
          timestamp: BigInt(genesis.timestamp),
          gasLimit: CALL_GAS,
          baseFeePerGas: VM_BASE_FEE_WEI,
        },
      },
      { common },
    )
    return new GenesisVm(vm, block)
  }

  /** call runs `signature(args)` on `to` from `caller` and returns the first word of the result. */
  async call(caller: string, to: string, signature: string, args: Uint8Array[], value = 0n): Promise<bigint> {
    const result = await this.vm.evm.runCall({
      to: addressOf(to),
      caller: addressOf(caller),
      origin: addressOf(caller),
      data: concatBytes(selector(signature), ...args),
      value,
      gasLimit: CALL_GAS,
      block: this.block,
    })
    const out = result.execResult.returnValue
    if (result.execResult.exceptionError !== undefined) {
      const name = this.errors.get(bytesToHex(out.subarray(0, 4))) ?? bytesToHex(out)
      throw new Error(`seating the genesis validators: ${signature} from ${caller} reverted (${name})`)
    }
    return out.length >= WORD_BYTES ? bytesToBigInt(out.subarray(0, WORD_BYTES)) : 0n
  }

  /** view: a read-only call from no one. */
  view(to: string, signature: string, args: Uint8Array[]): Promise<bigint> {
    return this.call('0x0000000000000000000000000000000000000000', to, signature, args)
  }

  async credit(address: string, wei: bigint): Promise<void> {
    const at = addressOf(address)
    const account = (await this.vm.stateManager.getAccount(at)) ?? createAccount({})
    account.balance += wei
    await this.vm.stateManager.putAccount(at, account)
  }

  /**
   * dumpInto writes into `alloc` every slot written (zero → removed) and the balance of every
   * account written or named in `balances` (an account absent from alloc whose balance is 0 stays
   * absent). Existing alloc keys keep their spelling.
   */
  async dumpInto(alloc: Record<string, GethGenesisAccount>, balances: string[]): Promise<void> {
    const addresses = new Set([...this.written.keys(), ...balances.map((b) => b.toLowerCase())])
    const sm = this.vm.stateManager
    for (const address of addresses) {
      const at = addressOf(address)
      const found = allocEntry(alloc, address)
      const balance = (await sm.getAccount(at))?.balance ?? 0n
      const slots = this.written.get(address)
      if (found === undefined && balance === 0n && slots === undefined) continue
      // a copy: the alloc's entries may be shared with the cached preset DAO (daoGenesis)
      const [key, entry] =
        found === undefined ? [bytesToHex(at.bytes), { balance: '0x0' }] : [found[0], { ...found[1] }]
      entry.balance = `0x${balance.toString(16)}`
      if (slots !== undefined) {
        const storage: Record<string, string> = {}
        for (const [slot, value] of Object.entries(entry.storage ?? {}))
          storage[bytesToHex(setLengthLeft(hexToBytes(prefixed(slot)), WORD_BYTES))] = value
        for (const slot of [...slots].sort()) {
          const value = await sm.getStorage(at, hexToBytes(slot as `0x${string}`))
          if (value.every((b) => b === 0)) delete storage[slot]
          else storage[slot] = bytesToHex(setLengthLeft(value, WORD_BYTES))
        }
        entry.storage = storage
      }
      alloc[key] = entry
    }
  }
}

/** allocEntry finds `address` among the alloc's keys (any case, with or without 0x). */
function allocEntry(
  alloc: Record<string, GethGenesisAccount>,
  address: string,
): [string, GethGenesisAccount] | undefined {
  const want = address.toLowerCase().replace(/^0x/, '')
  for (const [key, entry] of Object.entries(alloc))
    if (key.toLowerCase().replace(/^0x/, '') === want) return [key, entry]
  return undefined
}

function prefixed(hex: string): `0x${string}` {
  return (hex.startsWith('0x') || hex.startsWith('0X') ? `0x${hex.slice(2)}` : `0x${hex}`) as `0x${string}`
}

function addressOf(hex: string): Address {
  return new Address(hexToBytes(prefixed(hex)))
}

/** quantity reads an alloc balance or nonce: 0x-hex or decimal, absent = 0. */
function quantity(value: string | undefined): bigint {
  return value === undefined || value === '' ? 0n : BigInt(value)
}

function selector(signature: string): Uint8Array {
  return keccak256(utf8ToBytes(signature)).subarray(0, 4)
}

function uint(value: bigint | number): Uint8Array {
  return setLengthLeft(bigIntToBytes(BigInt(value)), WORD_BYTES)
}

function word(address: string): Uint8Array {
  return setLengthLeft(hexToBytes(prefixed(address)), WORD_BYTES)
}

/** errorNames: selector → `Name` of every custom error of the contracts called (for refusals). */
function errorNames(): Map<string, string> {
  const names = new Map<string, string>()
  for (const contract of ['KycRegistry', 'ValidatorNFT', 'ValidatorDAO', 'RevenuePool', 'ValidatorSigners']) {
    const abi = JSON.parse(readFileSync(join(packageRoot(), 'contracts', 'abi', `${contract}.json`), 'utf8')) as {
      type: string
      name: string
      inputs: { type: string }[]
    }[]
    for (const item of abi) {
      if (item.type !== 'error') continue
      const signature = `${item.name}(${item.inputs.map((i) => i.type).join(',')})`
      names.set(bytesToHex(selector(signature)), signature)
    }
  }
  return names
}
