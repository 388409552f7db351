/**
 * eth_simulateV1 refusals on a real dev chain (Prague rules), word for word as geth v1.17.5
 * answers them: sanitizeCall's block gas check (`remaining: R, required: G`), CallDefaults bare,
 * and everything ApplyMessage refuses as `err: <why> (supplied gas N)` with txValidationError's
 * kind (internal/ethapi/simulate.go, errors.go; core/state_transition.go, core/error.go). Also
 * what geth lets through: a blob call without a blob fee cap, `data` beside a different `input`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { toChecksumAddress } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestChain } from '../../test/helpers/chain.js'
import { DEV_ACCOUNTS } from '../../test/helpers/dev.js'
import { SIM_ERROR, type SimErrorKind, SimulationError } from './errors.js'
import { type SimulateEnv, simulate } from './index.js'
import { type BlockOverrides, emptyBlockOverrides, type SimBlock, type SimCall, type StateOverrides } from './types.js'

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ''), 'hex'))
const RICH_TEXT = DEV_ACCOUNTS[0]?.address as string
const RICH = bytes(RICH_TEXT)
const TO = bytes(DEV_ACCOUNTS[1]?.address as string)
/** An address nobody funds. */
const EMPTY = bytes('0x00000000000000000000000000000000000c0ffe')
const LOOP = bytes('0x00000000000000000000000000000000000100f0')
const IDENTITY = bytes('0x0000000000000000000000000000000000000004')
const VALID_BLOB = bytes(`0x01${'00'.repeat(31)}`)
const BAD_BLOB = bytes(`0x02${'11'.repeat(31)}`)
const GAS = 100_000n

let dir: string
let chain: Awaited<ReturnType<typeof openTestChain>>

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-simulate-'))
  chain = await openTestChain(dir, { validator: DEV_ACCOUNTS[0] as { address: string; privateKey: string } })
})

afterAll(async () => {
  await chain.db.close()
  rmSync(dir, { recursive: true, force: true })
})

function env(gasCap = 50_000_000n): SimulateEnv {
  return {
    db: chain.db,
    store: chain.store,
    common: chain.common,
    base: chain.store.head,
    gasCap,
    timeoutMs: 10_000,
    depositContract: new Uint8Array(20),
  }
}

function call(fields: Partial<SimCall>): SimCall {
  return {
    from: RICH,
    to: TO,
    gas: GAS,
    gasPrice: undefined,
    maxFeePerGas: undefined,
    maxPriorityFeePerGas: undefined,
    maxFeePerBlobGas: undefined,
    value: undefined,
    nonce: undefined,
    data: undefined,
    accessList: undefined,
    authorizationList: undefined,
    chainId: undefined,
    blobVersionedHashes: undefined,
    ...fields,
  }
}

function block(calls: SimCall[], o: Partial<BlockOverrides> = {}, stateOverrides?: StateOverrides): SimBlock {
  return { blockOverrides: { ...emptyBlockOverrides(), ...o }, stateOverrides, calls }
}

function run(blocks: SimBlock[], opts: { validation?: boolean; gasCap?: bigint } = {}) {
  return simulate(env(opts.gasCap), {
    blockStateCalls: blocks,
    traceTransfers: false,
    validation: opts.validation ?? false,
    returnFullTransactions: false,
  })
}

async function refusal(
  blocks: SimBlock[],
  opts: { validation?: boolean } = {},
): Promise<{ kind: SimErrorKind; message: string }> {
  try {
    await run(blocks, opts)
  } catch (err) {
    if (err instanceof SimulationError) return { kind: err.kind, message: err.message }
    throw err
  }
  throw new Error('simulated without a refusal')
}

const loopCode = (): StateOverrides =>
  new Map([
    [
      `0x${Buffer.from(LOOP).toString('hex')}`,
      {
        nonce: undefined,
        // JUMPDEST PUSH1 0 JUMP: runs until the gas is gone
        code: bytes('0x5b600056'),
        balance: undefined,
        state: undefined,
        stateDiff: undefined,
        movePrecompileTo: undefined,
      },
    ],
  ])

describe('eth_simulateV1 refusals in geth words', () => {
  it("the block's gas: remaining and required", async () => {
    expect(await refusal([block([call({ gas: 2_000_000n })], { gasLimit: 1_000_000n })])).toEqual({
      kind: SIM_ERROR.blockGasLimitReached,
      message: 'block gas limit reached: remaining: 1000000, required: 2000000',
    })
    expect(
      await refusal([block([call({ gas: 21_000n }), call({ gas: 1_000_000n })], { gasLimit: 1_000_000n })]),
    ).toEqual({
      kind: SIM_ERROR.blockGasLimitReached,
      message: 'block gas limit reached: remaining: 979000, required: 1000000',
    })
  })

  it('fee caps: tip above fee cap (-32602 kind), fee cap below the base fee', async () => {
    expect(await refusal([block([call({ maxFeePerGas: 1n, maxPriorityFeePerGas: 2n })])])).toEqual({
      kind: SIM_ERROR.invalidParams,
      message: `err: max priority fee per gas higher than max fee per gas: address ${RICH_TEXT}, maxPriorityFeePerGas: 2, maxFeePerGas: 1 (supplied gas ${GAS})`,
    })
    expect(await refusal([block([call({ maxFeePerGas: 1n })], { baseFeePerGas: 7n })])).toEqual({
      kind: SIM_ERROR.feeCapTooLow,
      message: `err: max fee per gas less than block base fee: address ${RICH_TEXT}, maxFeePerGas: 1, baseFee: 7 (supplied gas ${GAS})`,
    })
  })

  it('blobs: missing hashes, a bad version, a blob fee cap below the blob base fee', async () => {
    expect(await refusal([block([call({ blobVersionedHashes: [] })])])).toEqual({
      kind: SIM_ERROR.internal,
      message: `err: blob transaction missing blob hashes (supplied gas ${GAS})`,
    })
    expect(await refusal([block([call({ blobVersionedHashes: [VALID_BLOB, BAD_BLOB] })])])).toEqual({
      kind: SIM_ERROR.internal,
      message: `err: blob 1 has invalid hash version (supplied gas ${GAS})`,
    })
    expect(
      await refusal([block([call({ blobVersionedHashes: [VALID_BLOB], maxFeePerBlobGas: 1n })], { blobBaseFee: 10n })]),
    ).toEqual({
      kind: SIM_ERROR.internal,
      message: `err: max fee per blob gas less than block blob gas fee: address ${RICH_TEXT} blobGasFeeCap: 1, blobBaseFee: 10 (supplied gas ${GAS})`,
    })
  })

  it('an empty authorization list', async () => {
    expect(await refusal([block([call({ authorizationList: [] })])])).toEqual({
      kind: SIM_ERROR.internal,
      message: `err: EIP-7702 transaction with empty auth list (sender ${RICH_TEXT}) (supplied gas ${GAS})`,
    })
  })

  it('funds, intrinsic gas and the calldata floor', async () => {
    expect(await refusal([block([call({ from: EMPTY, value: 1n })])])).toEqual({
      kind: SIM_ERROR.insufficientFunds,
      message: `err: insufficient funds for gas * price + value: address ${toChecksumAddress('0x00000000000000000000000000000000000c0ffe')} have 0 want 1 (supplied gas ${GAS})`,
    })
    expect(await refusal([block([call({ gas: 20_000n })])])).toEqual({
      kind: SIM_ERROR.intrinsicGas,
      message: 'err: intrinsic gas too low: have 20000, want 21000 (supplied gas 20000)',
    })
    // 100 non-zero bytes: intrinsic 22600, floor 21000 + 100 × 4 × 10 = 25000
    expect(await refusal([block([call({ gas: 23_000n, data: new Uint8Array(100).fill(1) })])])).toEqual({
      kind: SIM_ERROR.internal,
      message: 'err: insufficient gas for floor data gas cost: have 23000, want 25000 (supplied gas 23000)',
    })
  })

  it('a gas price with an access list: the message pays for the list (the reported transaction is legacy)', async () => {
    const accessList = [{ address: TO, storageKeys: [] }]
    expect(await refusal([block([call({ gas: 21_000n, gasPrice: 0n, accessList })])])).toEqual({
      kind: SIM_ERROR.intrinsicGas,
      message: 'err: intrinsic gas too low: have 21000, want 23400 (supplied gas 21000)',
    })
    const [simulated] = await run([block([call({ gas: 30_000n, gasPrice: 0n, accessList })])])
    expect(simulated?.prepared[0]?.tx.type).toBe(0)
    expect(simulated?.calls[0]?.gasUsed).toBe(23_400n)
  })

  it('the nonce, when validating', async () => {
    expect(await refusal([block([call({ nonce: 5n, maxFeePerGas: 10n ** 12n })])], { validation: true })).toEqual({
      kind: SIM_ERROR.nonceTooHigh,
      message: `err: nonce too high: address ${RICH_TEXT}, tx: 5 state: 0 (supplied gas ${GAS})`,
    })
  })

  it('CallDefaults refusals stay bare', async () => {
    expect(await refusal([block([call({ gasPrice: 1n, maxFeePerGas: 1n })])])).toEqual({
      kind: SIM_ERROR.server,
      message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified',
    })
    expect(await refusal([block([call({ chainId: 1n })])])).toEqual({
      kind: SIM_ERROR.server,
      message: `chainId does not match node's (have=1, want=${chain.common.chainId()})`,
    })
  })
})

describe('eth_simulateV1 runs what geth lets through', () => {
  it('a blob call without a blob fee cap (the check is skipped without validation)', async () => {
    const [simulated] = await run([block([call({ blobVersionedHashes: [VALID_BLOB] })])])
    expect(simulated?.calls[0]?.status).toBe(1)
    expect(simulated?.prepared[0]?.tx.type).toBe(3)
  })

  it("a call's input (its data set differently is no error)", async () => {
    // the identity precompile returns what it is given: the simulator passes `input`, decoded into `data`
    const [simulated] = await run([block([call({ to: IDENTITY, data: bytes('0x02') })])])
    expect(simulated?.calls[0]?.returnData).toEqual(bytes('0x02'))
  })

  it('notes the RPC gas cap on a call that ran out of the gas it lowered', async () => {
    const capped = await run([block([call({ to: LOOP })], {}, loopCode())], { gasCap: 30_000n })
    expect(capped[0]?.calls[0]?.error?.message).toBe(
      "out of gas (gas limit was capped by the RPC server's global gas cap)",
    )
    const uncapped = await run([block([call({ to: LOOP })], {}, loopCode())])
    expect(uncapped[0]?.calls[0]?.error?.message).toBe('out of gas')
  })
})
