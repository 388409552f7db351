import { describe, expect, it } from 'vitest'
import {
  classifyEvmError,
  EngineError,
  ExecutionError,
  ExecutionRevertedError,
  FeeCapTooLowError,
  FloorDataGasError,
  GasAllowanceExceededError,
  gethVmError,
  InsufficientFundsError,
  InsufficientFundsForTransferError,
  IntrinsicGasError,
  TipAboveFeeCapError,
} from '../evm/errors.js'
import { TimestampNotAfterParentError } from '../consensus/devClock.js'
import { MineLimitError } from '../consensus/devControl.js'
import { NodeShuttingDownError, PoolBusyError, TraceLimitError, WorkerCrashedError } from '../exec/pool/errors.js'
import { TestingBuildError } from '../exec/simulate/buildTestingBlock.js'
import { SIM_ERROR, SimulationError } from '../simulate/errors.js'
import { TraceConfigError, TraceOptionsError } from '../trace/options.js'
import { OverrideError } from '../trace/overrides.js'
import { TraceError, TraceTimeoutError } from '../trace/run.js'
import { TraceTooLargeError } from '../trace/sink.js'
import { filterErrors } from '../filters/errors.js'
import { txErrors } from '../txpool/errors.js'
import {
  CheckpointBlockMissingError,
  CheckpointRangeError,
  CheckpointRootMismatchError,
  ExitLogIndexError,
  ExitUnknownTxError,
  NoCheckpointServiceError,
  NotABurnError,
  NotCheckpointedError,
  ReceiptsRootMismatchError,
} from '../validators/checkpoint/errors.js'
import { errorClasses, IbexError, reviveError, toWireError } from '../util/errors.js'
import {
  ClientLimitExceededError,
  errorCodeOf,
  errorKinds,
  INTERNAL_ERROR_MESSAGE,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  MethodNotFoundError,
  NotificationsUnsupportedError,
  newRevertError,
  ParseError,
  RateLimitedError,
  ResponseTooLargeError,
  RevertError,
  RpcError,
  ServerError,
  SubscriptionNotFoundError,
  toJsonRpcError,
} from './errors.js'
import { hexToBytes, toData } from '../util/hex.js'
import { decodeRevertReason } from '../util/revert.js'

const word = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, '0')

/** ABI-encodes Error(string) for `bytes` (utf8 of a string, or raw bytes). */
function errorString(reason: string | Uint8Array): Uint8Array {
  const body = typeof reason === 'string' ? Buffer.from(reason, 'utf8') : Buffer.from(reason)
  const padded = Buffer.concat([body, Buffer.alloc((32 - (body.length % 32)) % 32)])
  return hexToBytes(`0x08c379a0${word(32)}${word(body.length)}${padded.toString('hex')}`)
}

const panic = (code: bigint): Uint8Array => hexToBytes(`0x4e487b71${word(code)}`)

describe('error classes', () => {
  it('carry geth codes and messages', () => {
    const cases: [RpcError, number, string][] = [
      [new ParseError(), -32700, 'parse error'],
      [new InvalidRequestError(), -32600, 'invalid request'],
      [new InvalidRequestError('empty batch'), -32600, 'empty batch'],
      [new MethodNotFoundError('eth_foo'), -32601, 'the method eth_foo does not exist/is not available'],
      [new NotificationsUnsupportedError(), -32601, 'notifications not supported'],
      [
        new InvalidParamsError('missing value for required argument 0'),
        -32602,
        'missing value for required argument 0',
      ],
      [new InternalError(), -32603, INTERNAL_ERROR_MESSAGE],
      [new ServerError('nonce too low'), -32000, 'nonce too low'],
      [new LimitExceededError('query exceeds max block range 10000'), -32005, 'query exceeds max block range 10000'],
    ]
    for (const [err, code, message] of cases) {
      expect(err).toBeInstanceOf(RpcError)
      expect(err).toBeInstanceOf(Error)
      expect(err.code).toBe(code)
      expect(err.shortMessage).toBe(message)
      expect(err.message).toBe(message)
      expect(toJsonRpcError(err)).toEqual({ code, message })
    }
  })

  it('keep details and cause out of the wire object', () => {
    const cause = new Error('disk on fire')
    const err = new ServerError('insufficient funds for gas * price + value', {
      details: 'balance 0',
      cause,
      data: { x: 1 },
    })
    expect(err.details).toBe('balance 0')
    expect(err.cause).toBe(cause)
    expect(err.name).toBe('ServerError')
    expect(JSON.stringify(toJsonRpcError(err))).toBe(
      '{"code":-32000,"message":"insufficient funds for gas * price + value","data":{"x":1}}',
    )
  })
})

describe('toJsonRpcError', () => {
  it('maps unknown errors to -32603 without leaking their message or stack', () => {
    for (const thrown of [new TypeError('x is undefined'), 'boom', undefined, { code: 1, message: 'fake' }]) {
      const wire = toJsonRpcError(thrown)
      expect(wire.code).toBe(-32603)
      expect(wire.message).toBe('method handler crashed')
      expect(JSON.stringify(wire)).toBe('{"code":-32603,"message":"method handler crashed"}')
    }
  })
})

const ADDR = '0x8943545177806ED17B9F23F0a21ee5948eCaa776'

/** One error of every kind a module raises, with the code and message a client must read. */
const MODULE_ERRORS: [IbexError, number, string][] = [
  // transaction admission (geth core/txpool, core/error.go)
  [txErrors.alreadyKnown(), -32000, 'already known'],
  [txErrors.nonceTooLow(5n, 3n), -32000, 'nonce too low: next nonce 5, tx nonce 3'],
  [
    txErrors.insufficientFunds(10n, 25n),
    -32000,
    'insufficient funds for gas * price + value: balance 10, tx cost 25, overshot 15',
  ],
  [txErrors.intrinsicGas(20_000n, 21_000n), -32000, 'intrinsic gas too low: gas 20000, minimum needed 21000'],
  [
    txErrors.floorDataGas(21_000n, 21_400n),
    -32000,
    'insufficient gas for floor data gas cost: gas 21000, minimum needed 21400',
  ],
  [txErrors.gasLimit(), -32000, 'exceeds block gas limit'],
  [txErrors.underpriced(1n, 2n), -32000, 'transaction underpriced: gas tip cap 1, minimum needed 2'],
  [txErrors.invalidSender(), -32000, 'invalid sender'],
  [txErrors.invalidChainId(1n, 1337n), -32000, 'invalid sender: invalid chain id for signer: have 1 want 1337'],
  [txErrors.unprotected(), -32000, 'only replay-protected (EIP-155) transactions allowed over RPC'],
  [txErrors.typeNotSupported(), -32000, 'transaction type not supported'],
  [txErrors.oversized(200_000, 131_072), -32000, 'oversized data: transaction size 200000, limit 131072'],
  [txErrors.negativeValue(), -32000, 'negative value'],
  [txErrors.emptyAuthList(), -32000, 'EIP-7702 transaction with empty auth list'],
  [txErrors.createSetCode(), -32000, 'EIP-7702 transaction cannot be used to create contract'],
  [txErrors.decode('typed transaction too short'), -32000, 'typed transaction too short'],
  [txErrors.poolFull(), -32000, 'txpool is full'],
  [txErrors.underpricedFull(), -32000, 'transaction underpriced'],
  [txErrors.replaceUnderpriced(), -32000, 'replacement transaction underpriced'],
  [txErrors.futureReplacePending(), -32000, 'future transaction tries to replace pending'],
  [txErrors.accountLimit(16), -32000, 'account limit exceeded: pooled 16 txs'],
  // logs and filters (geth eth/filters; reth's result limit)
  [filterErrors.notFound(), -32000, 'filter not found'],
  [filterErrors.unknownBlock(), -32000, 'unknown block'],
  [filterErrors.headerForHash(), -32000, 'header for hash not found'],
  [filterErrors.invalidRange(), -32602, 'invalid block range params'],
  [filterErrors.beyondHead(), -32602, 'block range extends beyond current head block'],
  [filterErrors.rangeLimit(10_000), -32602, 'exceed maximum block range 10000'],
  [filterErrors.resultLimit(10_000, 5n, 9n), -32602, 'query exceeds max results 10000, retry with the range 5-9'],
  [
    filterErrors.tooMany(500, 'jsonrpc.max_filters_per_ip'),
    -32005,
    'too many filters and subscriptions: limit 500 reached (jsonrpc.max_filters_per_ip)',
  ],
  [new TestingBuildError('parentHash is not current head'), -32000, 'parentHash is not current head'],
  // messages (geth core/state_transition.go, internal/ethapi)
  [new ExecutionError('out of gas'), -32000, 'out of gas'],
  [
    new InsufficientFundsError(ADDR, 1n, 2n),
    -32000,
    `insufficient funds for gas * price + value: address ${ADDR} have 1 want 2`,
  ],
  [new InsufficientFundsForTransferError(), -32000, 'insufficient funds for transfer'],
  [new IntrinsicGasError(21_000n, 21_016n), -32000, 'intrinsic gas too low: have 21000, want 21016'],
  [new FloorDataGasError(21_016n, 21_040n), -32000, 'insufficient gas for floor data gas cost: have 21016, want 21040'],
  [
    new FeeCapTooLowError(ADDR, 1n, 818n),
    -32000,
    `max fee per gas less than block base fee: address ${ADDR}, maxFeePerGas: 1, baseFee: 818`,
  ],
  [
    new TipAboveFeeCapError(ADDR, 2n, 1n),
    -32000,
    `max priority fee per gas higher than max fee per gas: address ${ADDR}, maxPriorityFeePerGas: 2, maxFeePerGas: 1`,
  ],
  [new GasAllowanceExceededError(30_000_000n), -32000, 'gas required exceeds allowance (30000000)'],
  [
    new EngineError(
      new Error("Transaction's maxFeePerGas (1) is less than the block's baseFeePerGas (818) (vm hf=prague"),
    ),
    -32603,
    'internal error: the EVM failed to run this message',
  ],
  // the execution pool
  [
    new PoolBusyError('eth_call', 64),
    -32005,
    'limit exceeded: too many eth_call requests waiting (64), try again later',
  ],
  [new TraceLimitError('trace result exceeds the limit'), -32005, 'trace result exceeds the limit'],
  [
    new WorkerCrashedError(new Error('oom')),
    -32603,
    'internal error: the execution worker running this request crashed and was replaced',
  ],
  [new NodeShuttingDownError(), -32000, 'the node is shutting down'],
  // traces (geth eth/tracers)
  [new TraceError('tracing failed: out of gas'), -32000, 'tracing failed: out of gas'],
  [new TraceTimeoutError(), -32000, 'execution timeout'],
  [new TraceTooLargeError(1000), -32005, new TraceTooLargeError(1000).shortMessage],
  [
    new TraceOptionsError('json: cannot unmarshal string into Go value of type TraceConfig'),
    -32602,
    'json: cannot unmarshal string into Go value of type TraceConfig',
  ],
  [new TraceConfigError('time: invalid duration "x"'), -32000, 'time: invalid duration "x"'],
  [new OverrideError('stateOverrides: expected an object'), -32602, 'stateOverrides: expected an object'],
  // the dev chain's test controls (anvil's code and wording)
  [new TimestampNotAfterParentError(5n), -32602, "Timestamp error: 5 is lower than previous block's timestamp"],
  [new MineLimitError(11n, 10), -32602, 'cannot mine 11 blocks at once: at most 10 ([dev] mine_max_blocks)'],
  // checkpoints, block proofs and exit payloads (validators_)
  [
    new CheckpointRangeError('block 9 is outside checkpoint 10000 [1, 5]'),
    -32000,
    'block 9 is outside checkpoint 10000 [1, 5]',
  ],
  [new ExitUnknownTxError('0x01'), -32000, 'transaction not found'],
  [new ExitLogIndexError(4n, 'receipt', 2), -32000, 'log index 4 out of range: the receipt has 2 logs'],
  [new NotABurnError(0), -32000, 'log 0 of the receipt is not a burn (an ERC-20 Transfer to the zero address)'],
  [new NotCheckpointedError(6n, 5n), -32000, 'block 6 is not checkpointed yet (the last checkpoint ends at block 5)'],
  [new CheckpointBlockMissingError(3n), -32000, 'block 3 of the checkpoint is not in the local chain'],
  [new CheckpointRootMismatchError(10_000n), -32000, 'checkpoint 10000 does not match the local chain (root differs)'],
  [new ReceiptsRootMismatchError(2n), -32000, 'receipts of block 2 do not match its receiptsRoot'],
  [new NoCheckpointServiceError(), -32000, 'no checkpoint service is configured on this node'],
  // eth_simulateV1 (geth internal/ethapi/errors.go)
  ...(
    [
      [SIM_ERROR.nonceTooLow, -38010],
      [SIM_ERROR.nonceTooHigh, -38011],
      [SIM_ERROR.feeCapTooLow, -38012],
      [SIM_ERROR.intrinsicGas, -38013],
      [SIM_ERROR.insufficientFunds, -38014],
      [SIM_ERROR.blockGasLimitReached, -38015],
      [SIM_ERROR.blockNumberInvalid, -38020],
      [SIM_ERROR.blockTimestampInvalid, -38021],
      [SIM_ERROR.senderIsNotEOA, -38024],
      [SIM_ERROR.maxInitCodeSizeExceeded, -38025],
      [SIM_ERROR.clientLimitExceeded, -38026],
      [SIM_ERROR.invalidParams, -32602],
      [SIM_ERROR.internal, -32603],
      [SIM_ERROR.vmError, -32015],
      [SIM_ERROR.server, -32000],
    ] as const
  ).map(([kind, code]): [IbexError, number, string] => [
    new SimulationError(kind, `${kind} text`),
    code,
    `${kind} text`,
  ]),
]

describe('module errors: one mapping from kind to code', () => {
  it.each(MODULE_ERRORS.map((c) => [c[0].kind, ...c] as const))('%s', (_kind, err, code, message) => {
    expect(err).toBeInstanceOf(IbexError)
    expect(err.message).toBe(err.shortMessage)
    expect(toJsonRpcError(err)).toEqual({ code, message, data: undefined })
    expect(errorCodeOf(err.kind as never)).toBe(code)
  })

  it('covers every kind the table knows, and the table knows every kind raised', () => {
    const reverted = new ExecutionRevertedError(Uint8Array.of(1)).kind
    expect(new Set([...MODULE_ERRORS.map(([e]) => e.kind), reverted])).toEqual(new Set(errorKinds()))
  })

  it('answers a revert as geth does: code 3 with data, -32000 without', () => {
    expect(toJsonRpcError(new ExecutionRevertedError(hexToBytes('0xdeadbeef')))).toEqual({
      code: 3,
      message: 'execution reverted',
      data: '0xdeadbeef',
    })
    expect(toJsonRpcError(new ExecutionRevertedError(new Uint8Array()))).toEqual({
      code: -32000,
      message: 'execution reverted',
      data: undefined,
    })
  })

  it("keeps an engine error's text in details, never on the wire", () => {
    const err = new EngineError(new Error("Transaction's maxFeePerGas (1) is less than (vm hf=prague"))
    expect(err.details).toContain('vm hf=prague')
    expect(JSON.stringify(toJsonRpcError(err))).not.toContain('hf=')
  })

  it("the RPC layer's own named errors carry their codes", () => {
    expect(toJsonRpcError(new RateLimitedError('call', 3))).toEqual({
      code: -32005,
      message: 'limit exceeded',
      data: { budget: 'call', retryAfter: 3 },
    })
    expect(toJsonRpcError(new ResponseTooLargeError())).toEqual({
      code: -32003,
      message: 'response too large',
      data: undefined,
    })
    expect(toJsonRpcError(new SubscriptionNotFoundError())).toEqual({
      code: -32000,
      message: 'subscription not found',
      data: undefined,
    })
    expect(toJsonRpcError(new ClientLimitExceededError('too many slots (max 1024)')).code).toBe(-38026)
  })
})

describe('classifyEvmError: ethereumjs text in, our errors out', () => {
  const ctx = { from: hexToBytes(ADDR), gas: 21_000n, baseFee: 818n, intrinsicGas: () => 21_016n }

  it('recognises fee and intrinsic gas failures, with geth wording and checksummed sender', () => {
    const low = classifyEvmError(
      new Error(
        "Transaction's maxFeePerGas (1) is less than the block's baseFeePerGas (818) (vm hf=prague -> block number=3)",
      ),
      ctx,
    )
    expect(low).toBeInstanceOf(FeeCapTooLowError)
    expect(low.shortMessage).toBe(
      `max fee per gas less than block base fee: address ${ADDR}, maxFeePerGas: 1, baseFee: 818`,
    )
    const tip = classifyEvmError(
      new Error('maxFeePerGas cannot be less than maxPriorityFeePerGas (The fee cap must not be lower)'),
      { ...ctx, maxFeePerGas: 1n, maxPriorityFeePerGas: 2n },
    )
    expect(tip.shortMessage).toBe(
      `max priority fee per gas higher than max fee per gas: address ${ADDR}, maxPriorityFeePerGas: 2, maxFeePerGas: 1`,
    )
    expect(classifyEvmError(new Error('gasLimit is too low. given 21000, need at least 21016'), ctx)).toEqual(
      new IntrinsicGasError(21_000n, 21_016n),
    )
    const floor = 'INTRINSIC_GAS_TOO_LOW: tx gas limit 21020 is lower than the minimum gas limit of 21040 (vm hf=prague'
    expect(classifyEvmError(new Error(floor), { ...ctx, gas: 21_020n })).toEqual(
      new FloorDataGasError(21_020n, 21_040n),
    )
    expect(classifyEvmError(new Error(floor.replace('21020', '21000')), ctx)).toEqual(
      new IntrinsicGasError(21_000n, 21_016n),
    )
  })

  it('turns anything else into an EngineError (-32603), and passes our own errors through', () => {
    const unknown = classifyEvmError(new Error('invalid receipt trie (vm hf=prague'), ctx)
    expect(unknown).toBeInstanceOf(EngineError)
    expect(toJsonRpcError(unknown).code).toBe(-32603)
    const ours = new IntrinsicGasError(1n, 2n)
    expect(classifyEvmError(ours, ctx)).toBe(ours)
  })

  it('maps ethereumjs VM error strings to geth text, and unknown ones to a neutral one', () => {
    expect(gethVmError('stack overflow')).toBe('stack limit reached 1024 (1023)')
    expect(gethVmError('invalid JUMP at 0xabc/0xdef:12')).toBe('invalid jump destination')
    expect(gethVmError('some new ethereumjs failure')).toBe('execution failed')
  })
})

describe('errors across a worker', () => {
  it('revive as their class with their facts after a structured clone', () => {
    const sent = structuredClone(toWireError(new FeeCapTooLowError(ADDR, 1n, 818n)))
    const back = reviveError(sent, errorClasses(FeeCapTooLowError))
    expect(back).toBeInstanceOf(FeeCapTooLowError)
    expect(back).toMatchObject({ kind: 'feeCapTooLow', address: ADDR, feeCap: 1n, baseFee: 818n })
    expect(back.message).toBe(back.shortMessage)
    expect(toJsonRpcError(back)).toEqual(toJsonRpcError(new FeeCapTooLowError(ADDR, 1n, 818n)))
  })

  it('keep kind and wording when the receiving side does not know the class', () => {
    const back = reviveError(structuredClone(toWireError(new PoolBusyError('debug_trace', 8))), errorClasses())
    expect(back.kind).toBe('poolBusy')
    expect(toJsonRpcError(back)).toEqual({
      code: -32005,
      message: new PoolBusyError('debug_trace', 8).shortMessage,
      data: undefined,
    })
  })
})

describe('decodeRevertReason', () => {
  it('decodes Error(string)', () => {
    expect(decodeRevertReason(errorString('Ownable: caller is not the owner'))).toBe('Ownable: caller is not the owner')
    expect(decodeRevertReason(errorString(''))).toBe('')
    expect(decodeRevertReason(errorString('x'.repeat(70)))).toBe('x'.repeat(70))
    expect(decodeRevertReason(errorString('héllo ✓'))).toBe('héllo ✓')
  })

  it('replaces each invalid UTF-8 byte by U+FFFD, as Go does', () => {
    expect(decodeRevertReason(errorString(Uint8Array.of(0x61, 0xff, 0xe2, 0x82, 0x62)))).toBe('a\uFFFD\uFFFD\uFFFDb')
  })

  it('decodes Panic(uint256) with geth wording', () => {
    expect(decodeRevertReason(panic(0x01n))).toBe('assert(false)')
    expect(decodeRevertReason(panic(0x11n))).toBe('arithmetic underflow or overflow')
    expect(decodeRevertReason(panic(0x12n))).toBe('division or modulo by zero')
    expect(decodeRevertReason(panic(0x32n))).toBe('out-of-bounds access of an array or bytesN')
    expect(decodeRevertReason(panic(0x99n))).toBe('unknown panic code: 0x99')
  })

  it('gives up on malformed or foreign data', () => {
    expect(decodeRevertReason(new Uint8Array())).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0x08c379'))).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0x08c379a0'))).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0x4e487b7100'))).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0xdeadbeef'))).toBeUndefined()
    // offset past the end
    expect(decodeRevertReason(hexToBytes(`0x08c379a0${word(64)}${word(1)}`))).toBeUndefined()
    // length past the end
    expect(decodeRevertReason(hexToBytes(`0x08c379a0${word(32)}${word(33)}${'61'.repeat(32)}`))).toBeUndefined()
    // huge offset
    expect(decodeRevertReason(hexToBytes(`0x08c379a0${'f'.repeat(64)}${word(0)}`))).toBeUndefined()
  })
})

describe('RevertError / newRevertError', () => {
  it('is code 3 with the reason and the data', () => {
    const data = errorString('not enough')
    const err = new RevertError(data)
    expect(err.code).toBe(3)
    expect(err.reason).toBe('not enough')
    expect(toJsonRpcError(err)).toEqual({ code: 3, message: 'execution reverted: not enough', data: toData(data) })
  })

  it('says only execution reverted for undecodable data', () => {
    const err = newRevertError(hexToBytes('0xdeadbeef'))
    expect(toJsonRpcError(err)).toEqual({ code: 3, message: 'execution reverted', data: '0xdeadbeef' })
  })

  it('is a plain -32000 without data when the revert carried no data', () => {
    const err = newRevertError(new Uint8Array())
    expect(err).toBeInstanceOf(ServerError)
    expect(JSON.stringify(toJsonRpcError(err))).toBe('{"code":-32000,"message":"execution reverted"}')
  })

  it('decodes panics into the message', () => {
    expect(toJsonRpcError(newRevertError(panic(0x12n))).message).toBe('execution reverted: division or modulo by zero')
  })
})
