/**
 * Execution errors of eth_call / eth_estimateGas, worded as geth words them (core/vm/errors.go,
 * internal/ethapi). Reverts carry their return data; the RPC layer maps them to code 3.
 */
export class ExecutionRevertedError extends Error {
  readonly data: Uint8Array
  constructor(data: Uint8Array) {
    super('execution reverted')
    this.name = 'ExecutionRevertedError'
    this.data = data
  }
}

/** A -32000 execution failure (out of gas, invalid opcode, insufficient funds, timeout …). */
export class ExecutionError extends Error {
  readonly code = -32000
  constructor(message: string) {
    super(message)
    this.name = 'ExecutionError'
  }
}

const GETH_VM_ERRORS: Record<string, string> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  'invalid opcode': 'invalid opcode',
  'value out of range': 'return data out of bounds',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'invalid EOF format': 'invalid code: must not begin with 0xef',
}

/** geth's message for an ethereumjs EVM error string. */
export function gethVmError(ethereumjsError: string): string {
  // ethereumjs appends the code hash, address and pc: "invalid JUMP at 0x…/0x…:12"
  if (ethereumjsError.startsWith('invalid JUMP')) return 'invalid jump destination'
  return GETH_VM_ERRORS[ethereumjsError] ?? ethereumjsError
}
