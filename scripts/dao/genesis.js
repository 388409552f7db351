/**
 * The DAO's genesis state: every contract constructed once in a throw-away EVM (@ethereumjs/vm,
 * Prague, the preset's chain id and genesis timestamp) directly at its fixed address, then its
 * code and every storage slot it wrote dumped into a geth `alloc`. A node starting from that
 * alloc has the DAO from block 0, exactly as if it had been deployed, with no deployment
 * transactions and nothing to initialise in block 1.
 *
 *   SafeL2 singleton, factory, fallback handler, MultiSendCallOnly   (no arguments)
 *   Ops / Treasury / Shariah board Safes: SafeProxy(singleton) + setup(owners, threshold, handler)
 *   KycRegistry, ValidatorNFT, ValidatorDAO, RevenuePool, DaoTimelock, DaoGovernor,
 *   DisputeResolution, DaoLens                                        (plan.js: daoConstructorArgs)
 *
 * Constructors run with `address(this)` = the fixed address, so immutables (EIP-712 domain
 * caches, cross-contract references) are those of the final location. The storage written is
 * collected by tracing SSTORE; only non-zero slots are kept.
 */
import { createBlock } from '@ethereumjs/block'
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { Address, bytesToHex, createAccount, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { createVM } from '@ethereumjs/vm'
import { concat, getAddress, Interface, ZeroAddress } from 'ethers'

import { DAO_ADDRESSES, DAO_CONTRACTS, daoConstructorArgs, networkPlan, SAFES } from './plan.js'

/** GENESIS_DEPLOYER: msg.sender of the genesis constructors (no constructor keeps it). */
export const GENESIS_DEPLOYER = getAddress('0x0000000000000000000000000000000000da0000')
/** Gas for one constructor in the throw-away EVM (a block's worth). */
const CONSTRUCTOR_GAS = 30_000_000n

function toJsonParams(params) {
  return JSON.parse(JSON.stringify(params, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
}

/**
 * buildDaoGenesis(network, artifacts) → { network, chainId, addresses, params, roles, safes,
 * baseFeeRecipient, alloc }: the JSON written to contracts/genesis/<network>.json.
 */
export async function buildDaoGenesis(network, artifacts) {
  const plan = networkPlan(network)
  const common = createCustomCommon({ chainId: plan.chainId }, Mainnet, { hardfork: Hardfork.Prague })
  const vm = await createVM({ common })
  const { evm, stateManager: sm } = vm
  const block = createBlock(
    {
      header: {
        number: 0n,
        timestamp: BigInt(plan.timestamp),
        gasLimit: CONSTRUCTOR_GAS,
        baseFeePerGas: 1_000_000_000n,
      },
    },
    { common },
  )
  const deployer = new Address(hexToBytes(GENESIS_DEPLOYER))

  /** address (lowercase hex) → Set of written slots (bigint) */
  const written = new Map()
  evm.events.on('step', (step) => {
    if (step.opcode.name !== 'SSTORE') return
    const address = step.address.toString().toLowerCase()
    if (!written.has(address)) written.set(address, new Set())
    written.get(address).add(step.stack[step.stack.length - 1])
  })

  const place = async (artifactName, address, args) => {
    const artifact = artifacts[artifactName]
    const initcode = concat([artifact.bytecode, new Interface(artifact.abi).encodeDeploy(args)])
    const at = new Address(hexToBytes(address))
    await sm.putAccount(at, createAccount({ nonce: 1n, balance: 0n }))
    const result = await evm.runCode({
      code: hexToBytes(initcode),
      data: new Uint8Array(0),
      gasLimit: CONSTRUCTOR_GAS,
      to: at,
      caller: deployer,
      origin: deployer,
      block,
    })
    if (result.exceptionError !== undefined) {
      throw new Error(
        `${artifactName} at ${address}: constructor failed (${result.exceptionError.error}) ${bytesToHex(result.returnValue)}`,
      )
    }
    await sm.putCode(at, result.returnValue)
  }

  const call = async (address, data, what) => {
    const result = await evm.runCall({
      to: new Address(hexToBytes(address)),
      caller: deployer,
      origin: deployer,
      data: hexToBytes(data),
      gasLimit: CONSTRUCTOR_GAS,
      block,
    })
    if (result.execResult.exceptionError !== undefined) {
      throw new Error(`${what}: call failed (${result.execResult.exceptionError.error})`)
    }
    return result.execResult.returnValue
  }

  const a = DAO_ADDRESSES
  // Safe{Wallet} 1.4.1
  for (const name of ['SafeL2', 'SafeProxyFactory', 'CompatibilityFallbackHandler', 'MultiSendCallOnly']) {
    await place(name, a[name], [])
  }
  const safeIface = new Interface(artifacts.SafeL2.abi)
  for (const name of SAFES) {
    const { owners, threshold } = plan.safes[name]
    await place('SafeProxy', a[name], [a.SafeL2])
    const setup = safeIface.encodeFunctionData('setup', [
      owners,
      threshold,
      ZeroAddress,
      '0x',
      a.CompatibilityFallbackHandler,
      ZeroAddress,
      0,
      ZeroAddress,
    ])
    await call(a[name], setup, `${name}.setup`)
  }
  // the DAO
  const args = daoConstructorArgs(a, plan.params, plan.roles)
  for (const name of DAO_CONTRACTS) await place(name, a[name], args[name])

  // dump
  const alloc = {}
  const placed = [
    ...['SafeL2', 'SafeProxyFactory', 'CompatibilityFallbackHandler', 'MultiSendCallOnly'],
    ...SAFES,
    ...DAO_CONTRACTS,
  ]
  for (const name of placed) {
    const address = a[name]
    const at = new Address(hexToBytes(address))
    const account = await sm.getAccount(at)
    const storage = {}
    const slots = [...(written.get(address.toLowerCase()) ?? [])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
    for (const slot of slots) {
      const key = setLengthLeft(hexToBytes(`0x${slot.toString(16).padStart(64, '0')}`), 32)
      const value = await sm.getStorage(at, key)
      if (value.length === 0 || value.every((b) => b === 0)) continue
      storage[bytesToHex(key)] = bytesToHex(setLengthLeft(value, 32))
    }
    alloc[address] = {
      balance: `0x${(account?.balance ?? 0n).toString(16)}`,
      nonce: '0x1',
      code: bytesToHex(await sm.getCode(at)),
      storage,
    }
  }
  for (const [address, balance] of Object.entries(plan.funded)) {
    alloc[address] = { balance: `0x${balance.toString(16)}` }
  }
  return {
    network,
    chainId: plan.chainId,
    generatedBy: 'npm run contracts (scripts/compile-contracts.js); do not edit',
    addresses: { ...a },
    baseFeeRecipient: a.RevenuePool,
    params: toJsonParams(plan.params),
    roles: plan.roles,
    safes: plan.safes,
    alloc,
  }
}
