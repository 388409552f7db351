/**
 * Inputs of eth_simulateV1 as the simulator takes them (decoded from JSON by
 * src/rpc/params/simulate.ts): blocks of calls, each with optional block and state overrides.
 * Addresses are 20-byte arrays, hashes 32-byte arrays, quantities bigint; `undefined` = not given.
 */

/** One call: geth's TransactionArgs. */
export interface SimCall {
  from: Uint8Array | undefined
  to: Uint8Array | undefined
  gas: bigint | undefined
  gasPrice: bigint | undefined
  maxFeePerGas: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  maxFeePerBlobGas: bigint | undefined
  value: bigint | undefined
  nonce: bigint | undefined
  /** The call data: `input`, else `data` (geth's TransactionArgs.data(); a mismatch is no error here). */
  data: Uint8Array | undefined
  accessList: { address: Uint8Array; storageKeys: Uint8Array[] }[] | undefined
  authorizationList: SimAuthorization[] | undefined
  chainId: bigint | undefined
  blobVersionedHashes: Uint8Array[] | undefined
}

export interface SimAuthorization {
  chainId: bigint
  address: Uint8Array
  nonce: bigint
  yParity: number
  r: bigint
  s: bigint
}

/** geth's override.OverrideAccount. */
export interface AccountOverride {
  nonce: bigint | undefined
  code: Uint8Array | undefined
  balance: bigint | undefined
  /** Replaces the whole storage (slot → value, both 32 bytes). */
  state: [Uint8Array, Uint8Array][] | undefined
  /** Sets the given slots only. */
  stateDiff: [Uint8Array, Uint8Array][] | undefined
  movePrecompileTo: Uint8Array | undefined
}

/** Overridden accounts, in request order; keys are lowercase 0x addresses. */
export type StateOverrides = Map<string, AccountOverride>

export interface Withdrawal {
  index: bigint
  validatorIndex: bigint
  address: Uint8Array
  /** Gwei. */
  amount: bigint
}

/** geth's override.BlockOverrides. */
export interface BlockOverrides {
  number: bigint | undefined
  difficulty: bigint | undefined
  time: bigint | undefined
  gasLimit: bigint | undefined
  feeRecipient: Uint8Array | undefined
  prevRandao: Uint8Array | undefined
  baseFeePerGas: bigint | undefined
  blobBaseFee: bigint | undefined
  beaconRoot: Uint8Array | undefined
  withdrawals: Withdrawal[] | undefined
}

export interface SimBlock {
  blockOverrides: BlockOverrides | undefined
  stateOverrides: StateOverrides | undefined
  calls: SimCall[]
}

export interface SimulateRequest {
  blockStateCalls: SimBlock[]
  traceTransfers: boolean
  validation: boolean
  returnFullTransactions: boolean
}

export function emptyBlockOverrides(): BlockOverrides {
  return {
    number: undefined,
    difficulty: undefined,
    time: undefined,
    gasLimit: undefined,
    feeRecipient: undefined,
    prevRandao: undefined,
    baseFeePerGas: undefined,
    blobBaseFee: undefined,
    beaconRoot: undefined,
    withdrawals: undefined,
  }
}
