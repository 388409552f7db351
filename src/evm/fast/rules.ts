/**
 * The fork rules the fast interpreter runs under, read once per EVM from ethereumjs' own tables
 * and parameters (so the static fee of every opcode, and which opcodes exist, are ethereumjs'),
 * and the check that the fork is one the interpreter implements.
 */
import type { Common } from '@ethereumjs/common'
import type { EVM } from '@ethereumjs/evm'

/** Forks whose rules the interpreter implements; any other: bail out to ethereumjs. */
const SUPPORTED_FORKS = new Set(['cancun', 'prague'])

/**
 * EIPs that change execution in ways not implemented here (EOF, stateless gas, block access lists,
 * state gas, transfer logs, BLOCKHASH from the history contract, CLZ, new stack ops): bail out.
 */
const UNSUPPORTED_EIPS = [663, 2780, 3540, 6800, 7069, 7480, 7620, 7698, 7708, 7709, 7864, 7928, 7939, 8024, 8037, 8038]

/** What each opcode this interpreter implements is called in ethereumjs' table. */
const NAMED: [number, string][] = [
  [0x00, 'STOP'],
  [0x01, 'ADD'],
  [0x02, 'MUL'],
  [0x03, 'SUB'],
  [0x04, 'DIV'],
  [0x05, 'SDIV'],
  [0x06, 'MOD'],
  [0x07, 'SMOD'],
  [0x08, 'ADDMOD'],
  [0x09, 'MULMOD'],
  [0x0a, 'EXP'],
  [0x0b, 'SIGNEXTEND'],
  [0x10, 'LT'],
  [0x11, 'GT'],
  [0x12, 'SLT'],
  [0x13, 'SGT'],
  [0x14, 'EQ'],
  [0x15, 'ISZERO'],
  [0x16, 'AND'],
  [0x17, 'OR'],
  [0x18, 'XOR'],
  [0x19, 'NOT'],
  [0x1a, 'BYTE'],
  [0x1b, 'SHL'],
  [0x1c, 'SHR'],
  [0x1d, 'SAR'],
  [0x20, 'KECCAK256'],
  [0x30, 'ADDRESS'],
  [0x31, 'BALANCE'],
  [0x32, 'ORIGIN'],
  [0x33, 'CALLER'],
  [0x34, 'CALLVALUE'],
  [0x35, 'CALLDATALOAD'],
  [0x36, 'CALLDATASIZE'],
  [0x37, 'CALLDATACOPY'],
  [0x38, 'CODESIZE'],
  [0x39, 'CODECOPY'],
  [0x3a, 'GASPRICE'],
  [0x3b, 'EXTCODESIZE'],
  [0x3c, 'EXTCODECOPY'],
  [0x3d, 'RETURNDATASIZE'],
  [0x3e, 'RETURNDATACOPY'],
  [0x3f, 'EXTCODEHASH'],
  [0x40, 'BLOCKHASH'],
  [0x41, 'COINBASE'],
  [0x42, 'TIMESTAMP'],
  [0x43, 'NUMBER'],
  [0x44, 'PREVRANDAO'],
  [0x45, 'GASLIMIT'],
  [0x46, 'CHAINID'],
  [0x47, 'SELFBALANCE'],
  [0x48, 'BASEFEE'],
  [0x49, 'BLOBHASH'],
  [0x4a, 'BLOBBASEFEE'],
  [0x50, 'POP'],
  [0x51, 'MLOAD'],
  [0x52, 'MSTORE'],
  [0x53, 'MSTORE8'],
  [0x54, 'SLOAD'],
  [0x55, 'SSTORE'],
  [0x56, 'JUMP'],
  [0x57, 'JUMPI'],
  [0x58, 'PC'],
  [0x59, 'MSIZE'],
  [0x5a, 'GAS'],
  [0x5b, 'JUMPDEST'],
  [0x5c, 'TLOAD'],
  [0x5d, 'TSTORE'],
  [0x5e, 'MCOPY'],
  [0x5f, 'PUSH0'],
  [0xa0, 'LOG'],
  [0xa1, 'LOG'],
  [0xa2, 'LOG'],
  [0xa3, 'LOG'],
  [0xa4, 'LOG'],
  [0xf1, 'CALL'],
  [0xf2, 'CALLCODE'],
  [0xf3, 'RETURN'],
  [0xf4, 'DELEGATECALL'],
  [0xfa, 'STATICCALL'],
  [0xfd, 'REVERT'],
]
const NAMES: string[] = []
for (const [op, name] of NAMED) NAMES[op] = name
for (let op = 0x60; op <= 0x7f; op++) NAMES[op] = 'PUSH'
for (let op = 0x80; op <= 0x8f; op++) NAMES[op] = 'DUP'
for (let op = 0x90; op <= 0x9f; op++) NAMES[op] = 'SWAP'

/** How an opcode byte is treated. */
export const OP_INVALID = 0
/** Implemented here. */
export const OP_RUN = 1
/** Valid in this fork but not implemented here (CREATE, SELFDESTRUCT, …): bail out. */
export const OP_BAIL = 2

/** Gas parameters of the fork, as numbers (every value is far below 2^53). */
export interface Rules {
  /** Static fee per opcode (ethereumjs' table). */
  fee: Int32Array
  /** OP_INVALID / OP_RUN / OP_BAIL per opcode. */
  kind: Uint8Array
  memoryGas: number
  quadDiv: number
  copyGas: number
  keccakWordGas: number
  expByteGas: number
  logTopicGas: number
  logDataGas: number
  coldAccount: number
  warmRead: number
  coldSload: number
  callValue: number
  callNewAccount: number
  callStipend: number
  sstoreSentry: number
  sstoreNoop: number
  sstoreInit: number
  sstoreClean: number
  sstoreDirty: number
  callDepth: number
  /** EIP-3651: the coinbase starts warm. */
  warmCoinbase: boolean
  /** Precompiles by address (40 hex digits): ethereumjs' functions. */
  precompiles: Map<string, unknown>
  chainId: bigint
}

interface OpcodeEntry {
  opcodeInfo: { name: string; fee: number; isInvalid: boolean }
}

const byEvm = new WeakMap<object, Rules | null>()

function isSupported(common: Common): boolean {
  if (!SUPPORTED_FORKS.has(common.hardfork())) return false
  if (common.consensusAlgorithm() === 'clique') return false
  if (!common.isActivatedEIP(2929) || !common.isActivatedEIP(1153) || !common.isActivatedEIP(3855)) return false
  return !UNSUPPORTED_EIPS.some((eip) => common.isActivatedEIP(eip))
}

/** The rules of `evm`'s fork, or null when the interpreter does not implement that fork. */
export function rulesFor(evm: EVM): Rules | null {
  let rules = byEvm.get(evm)
  if (rules !== undefined) return rules
  const common = evm.common
  rules = isSupported(common) ? buildRules(evm, common) : null
  byEvm.set(evm, rules)
  return rules
}

function buildRules(evm: EVM, common: Common): Rules {
  const table = (evm as unknown as { _opcodeMap: OpcodeEntry[] })._opcodeMap
  const fee = new Int32Array(256)
  const kind = new Uint8Array(256)
  for (let op = 0; op < 256; op++) {
    const info = table[op]?.opcodeInfo
    if (info === undefined || info.isInvalid) continue
    fee[op] = info.fee
    kind[op] = NAMES[op] === info.name ? OP_RUN : OP_BAIL
  }
  const p = (name: string) => Number(common.param(name))
  return {
    fee,
    kind,
    memoryGas: p('memoryGas'),
    quadDiv: p('quadCoefficientDivGas'),
    copyGas: p('copyGas'),
    keccakWordGas: p('keccak256WordGas'),
    expByteGas: p('expByteGas'),
    logTopicGas: p('logTopicGas'),
    logDataGas: p('logDataGas'),
    coldAccount: p('coldaccountaccessGas'),
    warmRead: p('warmstoragereadGas'),
    coldSload: p('coldsloadGas'),
    callValue: p('callValueTransferGas'),
    callNewAccount: p('callNewAccountGas'),
    callStipend: p('callStipendGas'),
    sstoreSentry: p('sstoreSentryEIP2200Gas'),
    sstoreNoop: p('sstoreNoopEIP2200Gas'),
    sstoreInit: p('sstoreInitEIP2200Gas'),
    sstoreClean: p('sstoreCleanEIP2200Gas'),
    sstoreDirty: p('sstoreDirtyEIP2200Gas'),
    callDepth: p('stackLimit'),
    warmCoinbase: common.isActivatedEIP(3651),
    precompiles: evm.precompiles as Map<string, unknown>,
    chainId: common.chainId(),
  }
}
